/**
 * "Did you mean": the closest of some known names to a mistyped one, by edit distance (insert,
 * delete, replace, swap two neighbours; case ignored). One rule for every suggestion Loom makes:
 * commands, flags, config keys, tool and argument names. Pure; never throws.
 */

/** Edits (insert, delete, replace, swap two neighbours) that turn `from` into `to`. */
export function editDistance(from: string, to: string): number {
  const rows = from.length + 1;
  const columns = to.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  const at = (row: number, column: number) => table[row]?.[column] ?? 0;
  for (let row = 1; row < rows; row++) {
    for (let column = 1; column < columns; column++) {
      const cost = from[row - 1] === to[column - 1] ? 0 : 1;
      let best = Math.min(
        at(row - 1, column) + 1,
        at(row, column - 1) + 1,
        at(row - 1, column - 1) + cost,
      );
      const swapped =
        row > 1 &&
        column > 1 &&
        from[row - 1] === to[column - 2] &&
        from[row - 2] === to[column - 1];
      if (swapped) best = Math.min(best, at(row - 2, column - 2) + 1);
      (table[row] as number[])[column] = best;
    }
  }
  return at(from.length, to.length);
}

/** The closest of `names` when it is close enough to be a likely typo, else undefined. */
export function closestName(name: string, names: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  if (!best) return undefined;
  const allowed = Math.max(2, Math.floor(Math.max(name.length, best.name.length) / 3));
  return best.distance <= allowed ? best.name : undefined;
}

/** ` (did you mean NAME?)` for a likely typo of one of `names`; empty when none is close. */
export function didYouMean(name: string, names: readonly string[]): string {
  const closest = closestName(name, names);
  return closest === undefined ? '' : ` (did you mean ${closest}?)`;
}
