import type { ReactNode } from "react";
import { formatDate } from "../field-value";

/** One labelled value of a tool page's `<dl className="facts">`. */
export function Fact({ label, className, testId, children }: { label: string; className?: string; testId?: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd className={className} data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

/** An ISO timestamp, localised, machine-readable in `dateTime`. */
export function Timestamp({ value }: { value: string }) {
  return <time dateTime={value}>{formatDate(value)}</time>;
}
