/** A labelled filter: one `<select>` of `options`, where the empty option reads "any". */
export function FilterSelect(props: {
  id: string;
  label: string;
  value: string;
  options: readonly string[];
  onChange(value: string): void;
  className?: string;
}) {
  return (
    <div className={props.className ?? 'field'}>
      <label htmlFor={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o || 'any'}
          </option>
        ))}
      </select>
    </div>
  );
}
