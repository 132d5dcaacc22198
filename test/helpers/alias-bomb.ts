/**
 * A YAML "billion laughs": nine levels of anchors, each aliasing the one below ten times, so a
 * few hundred bytes expand to a billion nodes. For tests that a loader refuses it by name.
 */
export function aliasBombYaml(): string {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let level = 1; level < 9; level++) {
    lines.push(
      `a${level}: &a${level} [${Array(10)
        .fill(`*a${level - 1}`)
        .join(', ')}]`,
    );
  }
  return `${lines.join('\n')}\n`;
}
