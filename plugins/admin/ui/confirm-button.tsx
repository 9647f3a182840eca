import { useEffect, useRef, useState, type ReactNode } from "react";

interface ConfirmButtonProps {
  /** The button's text, e.g. "Delete". */
  readonly label: string;
  /** What will happen, asked before doing it. */
  readonly question: ReactNode;
  readonly confirmLabel: string;
  readonly onConfirm: () => void | Promise<void>;
  readonly disabled?: boolean;
  /** Why the button is disabled, shown beside it. */
  readonly disabledReason?: string;
  readonly danger?: boolean;
}

/**
 * A destructive action asked twice, inline (no browser dialog): the question, then confirm and
 * cancel. Focus moves to Cancel, so a stray second Enter does not confirm.
 */
export function ConfirmButton({ label, question, confirmLabel, onConfirm, disabled, disabledReason, danger = true }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) cancel.current?.focus();
  }, [asking]);
  const reasonId = `reason-${label.replace(/\W+/g, "-").toLowerCase()}`;
  if (asking) {
    return (
      <div className="confirm" role="group" aria-label={label}>
        <p>{question}</p>
        <button
          type="button"
          className={danger ? "button-danger" : "button-primary"}
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await onConfirm();
            } finally {
              setBusy(false);
              setAsking(false);
            }
          }}
        >
          {confirmLabel}
        </button>
        <button ref={cancel} type="button" className="button-secondary" disabled={busy} onClick={() => setAsking(false)}>
          Cancel
        </button>
      </div>
    );
  }
  return (
    <span className="action">
      <button type="button" className={danger ? "button-danger-outline" : "button-secondary"} disabled={disabled} aria-describedby={disabled && disabledReason ? reasonId : undefined} onClick={() => setAsking(true)}>
        {label}
      </button>
      {disabled && disabledReason ? (
        <span id={reasonId} className="hint">
          {disabledReason}
        </span>
      ) : null}
    </span>
  );
}
