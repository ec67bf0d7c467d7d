import { useEffect, useState } from 'react';

/** Copies `value` to the clipboard; says "Copied" for two seconds (announced to screen readers). */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className="small"
      aria-label={label}
      onClick={() =>
        navigator.clipboard.writeText(value).then(
          () => setState('copied'),
          () => setState('failed'),
        )
      }
    >
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}</span>
    </button>
  );
}

/** An id in monospace with its copy button. */
export function CopyId({ id, what = 'id' }: { id: string; what?: string }) {
  return (
    <span className="id">
      <code title={id}>{id}</code>
      <CopyButton value={id} label={`Copy ${what} ${id}`} />
    </span>
  );
}
