import { diffLines } from 'diff';
import { Table, type Column } from './Table';

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

/** One side's column: its changed cells get `changedClass` and say `changedWord` to screen readers. */
function side(key: 'left' | 'right', header: string, changedClass: string, changedWord: string): Column<Row> {
  return {
    header,
    key,
    className: (r) => (r.kind === 'same' ? '' : changedClass),
    cell: (r) => (
      <>
        {r.kind !== 'same' && r[key] !== null && <span className="sr-only">{`${changedWord}: `}</span>}
        <code>{r[key] ?? ''}</code>
      </>
    ),
  };
}

/** Two JSON values side by side, changed lines marked (and named for screen readers). */
export default function Diff({ left, right, leftLabel, rightLabel }: { left: unknown; right: unknown; leftLabel: string; rightLabel: string }) {
  const rows = sideBySide(JSON.stringify(left, null, 2), JSON.stringify(right, null, 2));
  const changed = rows.filter((r) => r.kind !== 'same').length;
  return (
    <Table
      label={`Diff of ${leftLabel} and ${rightLabel}`}
      caption={`${leftLabel} beside ${rightLabel}`}
      note={<p aria-live="polite">{changed === 0 ? 'The two versions hold the same data.' : `${changed} changed line${changed === 1 ? '' : 's'}.`}</p>}
      className="diff"
      phone="scroll"
      columns={[side('left', leftLabel, 'del', 'removed'), side('right', rightLabel, 'ins', 'added')]}
      rows={rows}
      rowKey={(_, i) => i}
      rowProps={(r) => ({ className: r.kind })}
    />
  );
}
