/**
 * Redacts text that arrives in pieces (a model's streamed text), so a credential split across
 * pieces is still caught: it holds back the shortest end of the text that could still grow into
 * a credential form (the start of a whole form, any run of a key's characters) and hands on the
 * rest redacted. `end` hands on what is held. Never throws on strings.
 */
import { type CredentialRedactor, replaceRanges } from './credential-redactor.js';

export class CredentialTextStream {
  private readonly redactor: CredentialRedactor;
  private held = '';

  constructor(redactor: CredentialRedactor) {
    this.redactor = redactor;
  }

  /** Adds `text`; returns what may be shown now (possibly ''). */
  push(text: string): string {
    if (this.redactor.empty) return text;
    const pending = this.held + text;
    const matches = this.redactor.matches(pending);
    let cut = this.safeCut(pending);
    for (const [start, end] of matches) if (start < cut && cut < end) cut = start;
    this.held = pending.slice(cut);
    return replaceRanges(
      pending.slice(0, cut),
      matches.filter(([, end]) => end <= cut),
    );
  }

  /** Everything still held, redacted; the stream starts afresh. */
  end(): string {
    const rest = this.held;
    this.held = '';
    return this.redactor.redact(rest);
  }

  /**
   * Where `pending` may be cut: before its longest end that could begin a credential
   * (a prefix of a whole form, or any part of a key's form, which may begin a matching end of it).
   */
  private safeCut(pending: string): number {
    let keep = 0;
    for (const { text: form, partial } of this.redactor.forms) {
      const longest = Math.min(form.length - 1 + (partial ? 1 : 0), pending.length);
      if (partial) {
        let length = keep + 1;
        while (length <= longest && form.includes(pending.slice(pending.length - length))) {
          length += 1;
        }
        keep = Math.max(keep, length - 1);
      } else {
        for (let length = longest; length > keep; length -= 1) {
          if (form.startsWith(pending.slice(pending.length - length))) {
            keep = length;
            break;
          }
        }
      }
    }
    return pending.length - keep;
  }
}
