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

export class CredentialRedactor implements JsonRedactor {
  /** The literals it looks for, each once. */
  readonly forms: readonly CredentialForm[];

  constructor(values: readonly CredentialValue[]) {
    const byText = new Map<string, CredentialForm>();
    for (const form of values.flatMap(formsOf)) {
      const known = byText.get(form.text);
      if (!known || (form.partial && !known.partial)) byText.set(form.text, form);
    }
    this.forms = [...byText.values()];
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
    for (const form of this.forms) {
      if (form.partial) partialRanges(text, form.text, ranges);
      else wholeRanges(text, form.text, ranges);
    }
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

/** Runs of `text` that are the first or last `minimumPartLength`+ characters of `form`. */
function partialRanges(text: string, form: string, ranges: Array<[number, number]>): void {
  const head = form.slice(0, minimumPartLength);
  for (let at = text.indexOf(head); at >= 0; at = text.indexOf(head, at + 1)) {
    let length = minimumPartLength;
    while (length < form.length && text[at + length] === form[length]) length += 1;
    ranges.push([at, at + length]);
  }
  const tail = form.slice(-minimumPartLength);
  for (let at = text.indexOf(tail); at >= 0; at = text.indexOf(tail, at + 1)) {
    const end = at + minimumPartLength;
    let length = minimumPartLength;
    while (
      length < form.length &&
      end - length > 0 &&
      text[end - length - 1] === form[form.length - length - 1]
    ) {
      length += 1;
    }
    ranges.push([end - length, end]);
  }
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
