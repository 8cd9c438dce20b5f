// A destructive action asks once more, in place (no modal to trap focus in).
import { useState } from 'react';

export function ConfirmButton({
  label,
  confirmLabel,
  onConfirm,
  disabled,
  tone = 'danger',
}: {
  label: string;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  /** danger: permanent (delete, revoke); caution: reversible (suspend). Styled apart. */
  tone?: 'danger' | 'caution';
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className={tone} onClick={() => setAsking(true)} disabled={disabled}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm">
      <button
        type="button"
        className={tone}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
