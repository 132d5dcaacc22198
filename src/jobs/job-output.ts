/**
 * The unread output of one job: what its producer handed over since the owner's last read,
 * bounded in bytes. Over the limit the oldest output goes first and the next read starts with a
 * marker saying how much was dropped. It never splits a UTF-8 character and never grows past its
 * limit, whatever the producer hands it.
 */

interface Chunk {
  text: string;
  bytes: number;
}

const isContinuationByte = (byte: number | undefined): boolean =>
  byte !== undefined && (byte & 0xc0) === 0x80;

export function droppedMarker(bytes: number): string {
  return `[… ${bytes} bytes of output dropped]\n`;
}

export class JobOutput {
  private chunks: Chunk[] = [];
  private unread = 0;
  private dropped = 0;
  /** The latest output, read or not, within the same limit: what a person watching sees. */
  private recentChunks: Chunk[] = [];
  private recentBytes = 0;

  /** `limitBytes` must be a positive integer. */
  constructor(private readonly limitBytes: number) {}

  /** Whether a read would return anything (output or a drop marker). */
  get hasUnread(): boolean {
    return this.unread > 0 || this.dropped > 0;
  }

  append(text: string): void {
    if (text === '') return;
    const bytes = Buffer.byteLength(text);
    this.chunks.push({ text, bytes });
    this.unread += bytes;
    this.dropOverflow();
    this.recentChunks.push({ text, bytes });
    this.recentBytes += bytes;
    if (this.recentBytes > this.limitBytes) {
      this.recentBytes -= cutFront(this.recentChunks, this.recentBytes - this.limitBytes);
    }
  }

  /** The latest output whether the owner read it or not, within the limit; marks nothing read. */
  recent(): string {
    return this.recentChunks.map((chunk) => chunk.text).join('');
  }

  /** Everything unread, with the drop marker first when output was lost; empties the buffer. */
  take(): string {
    const marker = this.dropped > 0 ? droppedMarker(this.dropped) : '';
    const text = this.chunks.map((chunk) => chunk.text).join('');
    this.chunks = [];
    this.unread = 0;
    this.dropped = 0;
    return marker + text;
  }

  private dropOverflow(): void {
    while (this.unread > this.limitBytes) {
      const oldest = this.chunks[0];
      if (oldest === undefined) return;
      const excess = this.unread - this.limitBytes;
      if (oldest.bytes <= excess) {
        this.chunks.shift();
        this.forget(oldest.bytes);
        continue;
      }
      const encoded = Buffer.from(oldest.text);
      let cut = excess;
      while (isContinuationByte(encoded[cut])) cut++;
      this.chunks[0] = { text: encoded.subarray(cut).toString(), bytes: oldest.bytes - cut };
      this.forget(cut);
    }
  }

  private forget(bytes: number): void {
    this.unread -= bytes;
    this.dropped += bytes;
  }
}

/** Removes at least `excess` bytes from the front of `chunks` (whole characters); returns how many. */
function cutFront(chunks: Chunk[], excess: number): number {
  let removed = 0;
  while (removed < excess) {
    const oldest = chunks[0];
    if (oldest === undefined) break;
    if (oldest.bytes <= excess - removed) {
      chunks.shift();
      removed += oldest.bytes;
      continue;
    }
    const encoded = Buffer.from(oldest.text);
    let cut = excess - removed;
    while (isContinuationByte(encoded[cut])) cut++;
    chunks[0] = { text: encoded.subarray(cut).toString(), bytes: oldest.bytes - cut };
    removed += cut;
  }
  return removed;
}
