/**
 * The one matcher that removes credential values from text: every form of every value (see
 * `credential-forms`), and for keys any run of 8 or more characters that is the start or the
 * end of one, each replaced by `[redacted]` (overlapping matches become one marker). Built once
 * per set of values (`redactorFor` keeps the last few), so redacting a line costs a few string
 * searches. Pure; it never throws on strings.
 */
import {
  type CredentialForm,
  type CredentialValue,
  formsOf,
  minimumPartLength,
} from './credential-forms.js';

export const redactedMarker = '[redacted]';

/** Anything that cleans text of credentials; must not throw. */
export interface TextRedactor {
  redact(text: string): string;
}

/** A redactor that also cleans JSON text, keeping it valid JSON; must not throw on valid JSON. */
export interface JsonRedactor extends TextRedactor {
  redactJson(json: string): string;
}

/** Where a form is found from: the 8 characters it starts or (a key's) ends with. */
interface Anchor {
  text: string;
  form: string;
  role: 'whole' | 'head' | 'tail';
}

export class CredentialRedactor implements JsonRedactor {
  /** The literals it looks for, each once. */
  readonly forms: readonly CredentialForm[];
  /** Anchors by the rolling hash of their 8 characters: one pass over a text finds them all. */
  private readonly anchors = new Map<number, Anchor[]>();
  /** Which low 16 bits of a hash any anchor has: most windows are ruled out by one read. */
  private readonly anchorBits = new Uint8Array(65536);
  /** Forms shorter than an anchor, searched for one by one. */
  private readonly shortForms: string[] = [];

  constructor(values: readonly CredentialValue[]) {
    const byText = new Map<string, CredentialForm>();
    for (const form of values.flatMap(formsOf)) {
      const known = byText.get(form.text);
      if (!known || (form.partial && !known.partial)) byText.set(form.text, form);
    }
    this.forms = [...byText.values()];
    for (const { text, partial } of this.forms) {
      if (text.length < anchorLength) {
        this.shortForms.push(text);
        continue;
      }
      this.anchor({
        text: text.slice(0, anchorLength),
        form: text,
        role: partial ? 'head' : 'whole',
      });
      if (partial) this.anchor({ text: text.slice(-anchorLength), form: text, role: 'tail' });
    }
  }

  private anchor(anchor: Anchor): void {
    const hash = windowHash(anchor.text, 0);
    this.anchorBits[hash & 0xffff] = 1;
    const known = this.anchors.get(hash);
    if (known) known.push(anchor);
    else this.anchors.set(hash, [anchor]);
  }

  get empty(): boolean {
    return this.forms.length === 0;
  }

  redact(text: string): string {
    return replaceRanges(text, this.matches(text));
  }

  /** Where credentials stand in `text`: disjoint `[start, end)` runs, in order. */
  matches(text: string): Array<[number, number]> {
    if (this.forms.length === 0 || text.length === 0) return [];
    const ranges: Array<[number, number]> = [];
    for (const form of this.shortForms) wholeRanges(text, form, ranges);
    if (this.anchors.size > 0 && text.length >= anchorLength) this.anchoredRanges(text, ranges);
    if (ranges.length < 2) return ranges;
    ranges.sort((left, right) => left[0] - right[0]);
    const merged: Array<[number, number]> = [];
    for (const [start, end] of ranges) {
      const last = merged.at(-1);
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else merged.push([start, end]);
    }
    return merged;
  }

  /** Slides an 8-character window over `text`; each anchor found there is matched out. */
  private anchoredRanges(text: string, ranges: Array<[number, number]>): void {
    let hash = windowHash(text, 0);
    const last = text.length - anchorLength;
    const bits = this.anchorBits;
    for (let at = 0; ; at += 1) {
      const anchors = bits[hash & 0xffff] === 1 ? this.anchors.get(hash) : undefined;
      if (anchors) {
        for (const anchor of anchors) {
          const range = text.startsWith(anchor.text, at) ? rangeOf(text, at, anchor) : undefined;
          if (range) ranges.push(range);
        }
      }
      if (at === last) return;
      hash =
        (Math.imul(hash - Math.imul(text.charCodeAt(at), highestPower), hashBase) +
          text.charCodeAt(at + anchorLength)) |
        0;
    }
  }

  /**
   * `json` (the text of one JSON value) without credentials, still valid JSON: when replacing
   * text cut an escape apart, every string in the value is redacted instead.
   */
  redactJson(json: string): string {
    const redacted = this.redact(json);
    if (redacted === json) return json;
    try {
      JSON.parse(redacted);
      return redacted;
    } catch {
      return JSON.stringify(JSON.parse(json), (_key, value: unknown) =>
        typeof value === 'string' ? this.redact(value) : value,
      );
    }
  }
}

/** `text` with each of `ranges` (disjoint, in order) replaced by the marker. */
export function replaceRanges(text: string, ranges: ReadonlyArray<[number, number]>): string {
  if (ranges.length === 0) return text;
  let result = '';
  let position = 0;
  for (const [start, end] of ranges) {
    result += text.slice(position, start) + redactedMarker;
    position = end;
  }
  return result + text.slice(position);
}

function wholeRanges(text: string, form: string, ranges: Array<[number, number]>): void {
  for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + 1)) {
    ranges.push([at, at + form.length]);
  }
}

/** The run of `text` that the anchor found at `at` belongs to; none when a whole form is not there. */
function rangeOf(text: string, at: number, anchor: Anchor): [number, number] | undefined {
  const { form } = anchor;
  if (anchor.role === 'whole') {
    return text.startsWith(form, at) ? [at, at + form.length] : undefined;
  }
  let length = anchorLength;
  if (anchor.role === 'head') {
    while (length < form.length && text[at + length] === form[length]) length += 1;
    return [at, at + length];
  }
  const end = at + anchorLength;
  while (
    length < form.length &&
    end - length > 0 &&
    text[end - length - 1] === form[form.length - length - 1]
  ) {
    length += 1;
  }
  return [end - length, end];
}

const anchorLength = minimumPartLength;
const hashBase = 257;
/** `hashBase` to the power `anchorLength - 1`, as the rolling hash wraps (32 bits). */
const highestPower = Array.from({ length: anchorLength - 1 }).reduce<number>(
  (power) => Math.imul(power, hashBase),
  1,
);

/** The hash of the 8 characters of `text` from `at`. */
function windowHash(text: string, at: number): number {
  let hash = 0;
  for (let index = at; index < at + anchorLength; index += 1) {
    hash = (Math.imul(hash, hashBase) + text.charCodeAt(index)) | 0;
  }
  return hash;
}

const remembered: Array<{ key: string; redactor: CredentialRedactor }> = [];
const rememberedLimit = 8;

/** The redactor of `values`, built once for the same values (the last few sets are kept). */
export function redactorFor(values: readonly CredentialValue[]): CredentialRedactor {
  const key = JSON.stringify(values.map((value) => [value.kind, value.value]));
  const known = remembered.find((entry) => entry.key === key);
  if (known) return known.redactor;
  const redactor = new CredentialRedactor(values);
  remembered.unshift({ key, redactor });
  if (remembered.length > rememberedLimit) remembered.pop();
  return redactor;
}
