/**
 * The host's outgoing wire messages, batched: envelopes sent in the same turn of the event loop
 * leave as one post at its end (a lone envelope as itself, several as an array), in the order
 * they were sent. A post wakes the worker's thread, so a hundred replies ready at once cost one
 * wake-up, not a hundred. It never reorders, drops or merges envelopes; the worker reads a post
 * with `envelopesOf`.
 */
import type { WirePort } from './protocol.js';

export class WireOutbox<Envelope> {
  private readonly port: Pick<WirePort, 'postMessage'>;
  private readonly onPostFailure: (error: unknown) => void;
  private queued: Envelope[] = [];
  private postCount = 0;

  /** `onPostFailure` hears a post the port refused; it runs outside `send`'s caller. */
  constructor(port: Pick<WirePort, 'postMessage'>, onPostFailure: (error: unknown) => void) {
    this.port = port;
    this.onPostFailure = onPostFailure;
  }

  /**
   * Posts made so far; while it has not changed since an envelope was sent, that envelope is
   * still queued (its payload may yet be brought up to date by its sender).
   */
  get posts(): number {
    return this.postCount;
  }

  send(envelope: Envelope): void {
    this.queued.push(envelope);
    if (this.queued.length === 1) setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    const batch = this.queued;
    this.queued = [];
    this.postCount += 1;
    try {
      this.port.postMessage(batch.length === 1 ? batch[0] : batch);
    } catch (error) {
      this.onPostFailure(error);
    }
  };
}
