/**
 * A text buffer with a character cap that keeps the head and the tail of what it was given and
 * marks the middle it dropped. Memory stays bounded by about twice the cap however much is
 * appended; it never throws on input.
 */

export class BoundedOutput {
  private head = '';
  private tail = '';
  private total = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;

  constructor(private readonly limit: number) {
    this.headLimit = Math.ceil(limit / 2);
    this.tailLimit = limit - this.headLimit;
  }

  append(text: string): void {
    if (text === '') return;
    this.total += text.length;
    const room = this.headLimit - this.head.length;
    const rest = room > 0 ? text.slice(room) : text;
    if (room > 0) this.head += text.slice(0, room);
    if (rest === '') return;
    this.tail += rest;
    if (this.tail.length > this.tailLimit * 2) this.tail = this.tail.slice(-this.tailLimit);
  }

  /** Characters dropped from the middle so far. */
  get cut(): number {
    return Math.max(0, this.total - this.limit);
  }

  toString(): string {
    if (this.cut === 0) return this.head + this.tail;
    const kept = this.tailLimit === 0 ? '' : this.tail.slice(-this.tailLimit);
    return `${this.head}\n… ${this.cut} characters cut …\n${kept}`;
  }
}
