// Field paths as apimachinery's field.Path renders them: `.` between children, `[key]` for map
// keys, `[i]` for list indexes. An empty parent means the root.

export const childPath = (parent: string, name: string): string => (parent ? `${parent}.${name}` : name);

export const keyPath = (parent: string, key: string): string => `${parent}[${key}]`;

export const indexPath = (parent: string, index: number): string => `${parent}[${index}]`;
