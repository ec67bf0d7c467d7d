import { diffLines } from 'diff';

interface Row {
  left: string | null;
  right: string | null;
  kind: 'same' | 'changed' | 'removed' | 'added';
}

/** Pairs a line diff into side-by-side rows: removals beside the additions that replace them. */
export function sideBySide(before: string, after: string): Row[] {
  const rows: Row[] = [];
  const lines = (value: string) => value.replace(/\n$/, '').split('\n');
  const parts = diffLines(before, after);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.removed && parts[i + 1]?.added) {
      const removed = lines(part.value);
      const added = lines(parts[i + 1].value);
      for (let j = 0; j < Math.max(removed.length, added.length); j++) {
        rows.push({ left: removed[j] ?? null, right: added[j] ?? null, kind: 'changed' });
      }
      i++;
    } else if (part.removed) {
      for (const l of lines(part.value)) rows.push({ left: l, right: null, kind: 'removed' });
    } else if (part.added) {
      for (const l of lines(part.value)) rows.push({ left: null, right: l, kind: 'added' });
    } else {
      for (const l of lines(part.value)) rows.push({ left: l, right: l, kind: 'same' });
    }
  }
  return rows;
}

/** Two JSON values side by side, changed lines marked (and named for screen readers). */
export default function Diff({ left, right, leftLabel, rightLabel }: { left: unknown; right: unknown; leftLabel: string; rightLabel: string }) {
  const rows = sideBySide(JSON.stringify(left, null, 2), JSON.stringify(right, null, 2));
  const changed = rows.filter((r) => r.kind !== 'same').length;
  return (
    <div className="table-wrap" role="region" aria-label={`Diff of ${leftLabel} and ${rightLabel}`} tabIndex={0}>
      <p aria-live="polite">{changed === 0 ? 'The two versions hold the same data.' : `${changed} changed line${changed === 1 ? '' : 's'}.`}</p>
      <table className="diff">
        <caption className="sr-only">
          {leftLabel} beside {rightLabel}
        </caption>
        <thead>
          <tr>
            <th scope="col">{leftLabel}</th>
            <th scope="col">{rightLabel}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} className={r.kind}>
              <td className={r.kind === 'same' ? '' : 'del'}>
                {r.kind !== 'same' && r.left !== null && <span className="sr-only">removed: </span>}
                <code>{r.left ?? ''}</code>
              </td>
              <td className={r.kind === 'same' ? '' : 'ins'}>
                {r.kind !== 'same' && r.right !== null && <span className="sr-only">added: </span>}
                <code>{r.right ?? ''}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
