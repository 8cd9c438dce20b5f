// The console's forms that open in place (create a user, edit a resource…): the button that shows
// or hides one (with a list page's title, or on its own), and the form itself with its buttons and
// the API's refusal.
import { type ReactNode, useState } from 'react';
import { ProblemView } from './status';

/** Shows or hides the form; says which it is to assistive technology (aria-expanded). */
export function FormToggle({ open, onToggle, children }: { open: boolean; onToggle: () => void; children: ReactNode }) {
  return (
    <button type="button" onClick={onToggle} aria-expanded={open}>
      {children}
    </button>
  );
}

/** A list page's title with the button that opens its create form, for those who may create. */
export function TitleWithForm({
  title,
  button,
  allowed,
  form,
}: {
  title: string;
  button: string;
  allowed: boolean;
  /** The form, given what closes it (after it is done, or cancelled). */
  form: (close: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <div className="title-row">
        <h1>{title}</h1>
        {allowed && (
          <FormToggle open={open} onToggle={() => setOpen((o) => !o)}>
            {button}
          </FormToggle>
        )}
      </div>
      {open && form(() => setOpen(false))}
    </>
  );
}

/**
 * The form in its panel: submitting runs the mutation (no page load); Submit and Cancel at its foot,
 * then the API's refusal if the last submit failed. Field errors are shown at the fields
 * (TextField's `problem`), so the refusal is inline.
 */
export function PanelForm({
  label,
  mutation,
  submit,
  failed,
  onCancel,
  children,
}: {
  /** The form's accessible name, e.g. "Create a user". */
  label: string;
  mutation: { mutate: () => void; isPending: boolean; isError: boolean; error: unknown };
  /** The submit button's text. */
  submit: string;
  /** The refusal's title, e.g. "Not created". */
  failed: string;
  onCancel: () => void;
  children: ReactNode;
}) {
  return (
    <form
      className="panel"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        mutation.mutate();
      }}
    >
      {children}
      <div className="row">
        <button type="submit" disabled={mutation.isPending}>
          {submit}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {mutation.isError && <ProblemView error={mutation.error} title={failed} inline />}
    </form>
  );
}
