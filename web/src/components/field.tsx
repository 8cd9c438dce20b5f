// A labelled input that shows the API's validation errors for its JSON path (errors[].path, e.g.
// /body/allow/rules/0/verbs/1) right under it, so a person sees which field the server refused.
import { type InputHTMLAttributes, useId } from 'react';
import { Problem } from '../api/client';

/** Errors of a problem at `path` or below it (a list field owns the errors of its items). */
export function errorsAt(problem: unknown, path: string): string[] {
  if (!(problem instanceof Problem)) return [];
  return problem.errors.filter((e) => e.path === path || e.path.startsWith(`${path}/`)).map((e) => e.message);
}

/** Errors no field on the form claims, to show above it. */
export function unclaimedErrors(problem: unknown, claimed: (path: string) => boolean): string[] {
  if (!(problem instanceof Problem)) return [];
  return problem.errors.filter((e) => !claimed(e.path)).map((e) => `${e.path} ${e.message}`);
}

export function TextField({
  label,
  path,
  problem,
  value,
  onChange,
  hint,
  ...rest
}: {
  label: string;
  path?: string;
  problem?: unknown;
  value: string;
  onChange: (v: string) => void;
  hint?: string;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>) {
  const id = useId();
  const errors = path ? errorsAt(problem, path) : [];
  const describedBy = [hint ? `${id}-hint` : '', errors.length ? `${id}-err` : ''].filter(Boolean).join(' ');
  return (
    <div className={errors.length ? 'field invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={errors.length > 0 || undefined}
        aria-describedby={describedBy || undefined}
        {...rest}
      />
      {hint && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
      {errors.length > 0 && (
        <small id={`${id}-err`} className="field-error" role="alert">
          {errors.join('; ')}
        </small>
      )}
    </div>
  );
}

export function SelectField({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  options: Array<[string, string]>;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A multi-line input (PEM certificates, keys), with the API's errors for its path under it. */
export function TextAreaField({
  label,
  path,
  problem,
  value,
  onChange,
  hint,
  placeholder,
}: {
  label: string;
  path?: string;
  problem?: unknown;
  value: string;
  onChange: (v: string) => void;
  hint?: string;
  placeholder?: string;
}) {
  const id = useId();
  const errors = path ? errorsAt(problem, path) : [];
  return (
    <div className={errors.length ? 'field invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        value={value}
        rows={4}
        spellCheck={false}
        placeholder={placeholder}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={errors.length > 0 || undefined}
        aria-describedby={errors.length ? `${id}-err` : hint ? `${id}-hint` : undefined}
      />
      {hint && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
      {errors.length > 0 && (
        <small id={`${id}-err`} className="field-error" role="alert">
          {errors.join('; ')}
        </small>
      )}
    </div>
  );
}
