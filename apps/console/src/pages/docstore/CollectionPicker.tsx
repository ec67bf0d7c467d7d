import { useState, type FormEvent } from 'react';
import type { Collection } from './paths';

/** Environment, context and type typed in (the collections page links here too). */
export function CollectionPicker({ value, onPick, submitLabel = 'Open' }: { value: Collection | null; onPick(c: Collection): void; submitLabel?: string }) {
  const [c, setC] = useState<Collection>(value ?? { environment: 'production', context: '', type: '' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (c.environment && c.context && c.type) onPick(c);
  };
  return (
    <form onSubmit={submit} className="inline" aria-label="Collection">
      {(['environment', 'context', 'type'] as const).map((k) => (
        <div className="field" key={k}>
          <label htmlFor={`collection-${k}`}>{k[0].toUpperCase() + k.slice(1)}</label>
          <input id={`collection-${k}`} required value={c[k]} onChange={(e) => setC({ ...c, [k]: e.target.value })} />
        </div>
      ))}
      <button type="submit">{submitLabel}</button>
    </form>
  );
}
