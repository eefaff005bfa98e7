// A metric label whose values come from text others write (a pod label, a request): each distinct value is a
// series kept for the life of the process, so an unbounded set of values grows /metrics and the memory
// without bound. The known values are always their own; the first few others seen are kept too (the
// operation types of a cluster are few); after that, `other`.

export const OTHER_LABEL_VALUE = 'other';

export class BoundedLabelValues {
  readonly #known: ReadonlySet<string>;
  readonly #seen = new Set<string>();
  readonly #capacity: number;

  /** `capacity`: how many values besides the known ones get a series of their own. */
  constructor(known: Iterable<string>, capacity: number) {
    this.#known = new Set(known);
    this.#capacity = capacity;
  }

  /** The label value for `text`: itself when known or among the first `capacity` others seen, else `other`. */
  value(text: string): string {
    if (this.#known.has(text) || this.#seen.has(text)) return text;
    if (this.#seen.size >= this.#capacity) return OTHER_LABEL_VALUE;
    this.#seen.add(text);
    return text;
  }
}
