// A list of values as tokens rather than comma-separated text: each value a chip with its remove
// button; typing offers the allowed values (a datalist), Enter or a comma adds one. With `allowed`
// strict, only those values are accepted (verbs, kinds); otherwise they are suggestions (roles,
// logins) and the server judges the rest.
import { type KeyboardEvent, useId, useState } from 'react';
import { errorsAt } from './field';

export function TokenInput({
  label,
  values,
  onChange,
  suggestions = [],
  strict = false,
  path,
  problem,
  placeholder,
}: {
  label: string;
  values: string[];
  onChange: (values: string[]) => void;
  suggestions?: readonly string[];
  strict?: boolean;
  path?: string;
  problem?: unknown;
  placeholder?: string;
}) {
  const id = useId();
  const [text, setText] = useState('');
  const [refused, setRefused] = useState<string>();
  const errors = [...(path ? errorsAt(problem, path) : []), ...(refused ? [refused] : [])];
  // Pasted or filled text may hold several values: "a, b" adds both.
  const add = (raw: string) => {
    const typed = raw
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
    if (!typed.length) return;
    const wrong = strict ? typed.filter((v) => !suggestions.includes(v)) : [];
    if (wrong.length) {
      setRefused(`${wrong.join(', ')}: not one of ${suggestions.join(', ')}`);
      return;
    }
    setRefused(undefined);
    onChange([...values, ...typed.filter((v, i) => !values.includes(v) && typed.indexOf(v) === i)]);
    setText('');
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' || e.key === ',') {
      e.preventDefault();
      add(text);
    } else if (e.key === 'Backspace' && text === '' && values.length) onChange(values.slice(0, -1));
  };
  return (
    <div className={errors.length ? 'field invalid tokens' : 'field tokens'}>
      <label htmlFor={id}>{label}</label>
      <div className="row">
        {values.map((v) => (
          <button
            key={v}
            type="button"
            className="chip"
            aria-label={`Remove ${label} ${v}`}
            onClick={() => onChange(values.filter((x) => x !== v))}
          >
            {v} ×
          </button>
        ))}
        <input
          id={id}
          list={`${id}-options`}
          value={text}
          placeholder={placeholder}
          onChange={(e) => {
            // Choosing from the datalist fills the whole value at once: take it as a token.
            const v = e.target.value;
            if (suggestions.includes(v) && !values.includes(v)) add(v);
            else setText(v);
          }}
          onKeyDown={onKey}
          onBlur={() => add(text)}
          aria-invalid={errors.length > 0 || undefined}
          aria-describedby={errors.length ? `${id}-err` : undefined}
        />
        <datalist id={`${id}-options`}>
          {suggestions
            .filter((s) => !values.includes(s))
            .map((s) => (
              <option key={s} value={s} />
            ))}
        </datalist>
      </div>
      {errors.length > 0 && (
        <small id={`${id}-err`} className="field-error" role="alert">
          {errors.join('; ')}
        </small>
      )}
    </div>
  );
}
