// The demo's two kinds of message: what went wrong (announced at once) and what was done.

/** What went wrong, announced at once. */
export function ErrorAlert({ text }: { text: string | undefined }) {
  return text ? (
    <p data-testid="error" role="alert" className="error">
      {text}
    </p>
  ) : null;
}

/** What was done (a link was sent, a password was changed), said politely. */
export function Notice({ text }: { text: string | undefined }) {
  return text ? (
    <p data-testid="notice" role="status" className="notice">
      {text}
    </p>
  ) : null;
}
