// A binary min-heap ordered by a numeric priority.

export class MinHeap<T> {
  readonly #items: { value: T; priority: number }[] = [];

  get size(): number {
    return this.#items.length;
  }

  push(value: T, priority: number): void {
    const items = this.#items;
    items.push({ value, priority });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]!.priority <= items[i]!.priority) break;
      [items[parent], items[i]] = [items[i]!, items[parent]!];
      i = parent;
    }
  }

  peek(): { value: T; priority: number } | undefined {
    return this.#items[0];
  }

  pop(): { value: T; priority: number } | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && items[left]!.priority < items[smallest]!.priority) smallest = left;
      if (right < items.length && items[right]!.priority < items[smallest]!.priority) smallest = right;
      if (smallest === i) break;
      [items[smallest], items[i]] = [items[i]!, items[smallest]!];
      i = smallest;
    }
    return top;
  }

  clear(): void {
    this.#items.length = 0;
  }
}
