import { useNotificationContext, useTranslate, type NotificationPayload } from "ra-core";
import { useEffect, useRef, useState } from "react";

/** How long a success or info message stays; errors stay until dismissed. */
const SHOWN_FOR_MS = 6000;

interface Shown {
  readonly key: number;
  readonly text: string;
  readonly type: NotificationPayload["type"];
}

/**
 * ra-core's notifications in two live regions that are always in the page (so screen readers
 * announce what is added): errors in an assertive `alert`, the rest in a polite `status`.
 */
export function Notifications() {
  const { notifications, setNotifications } = useNotificationContext();
  const translate = useTranslate();
  const [shown, setShown] = useState<Shown[]>([]);
  const next = useRef(0);

  useEffect(() => {
    if (notifications.length === 0) return;
    // All of them at once (ra-core's takeNotification hands out one per render).
    setNotifications((current) => current.filter((notification) => !notifications.includes(notification)));
    const taken: Shown[] = notifications.map(({ message, type, notificationOptions }) => ({
      key: next.current++,
      text: typeof message === "string" ? translate(message, notificationOptions?.messageArgs) : String(message),
      type,
    }));
    // The same message twice in a row (two failing requests) is shown once.
    setShown((current) => [...current.filter((item) => !taken.some((added) => added.text === item.text)), ...taken].slice(-4));
    for (const item of taken) {
      if (item.type !== "error" && item.type !== "warning") setTimeout(() => setShown((current) => current.filter((other) => other.key !== item.key)), SHOWN_FOR_MS);
    }
  }, [notifications, setNotifications, translate]);

  const dismiss = (key: number) => setShown((current) => current.filter((item) => item.key !== key));
  const list = (urgent: boolean) =>
    shown
      .filter((item) => (item.type === "error" || item.type === "warning") === urgent)
      .map((item) => (
        <div key={item.key} className={`notification notification-${item.type}`}>
          <p>{item.text}</p>
          <button type="button" className="link-button" onClick={() => dismiss(item.key)}>
            Dismiss<span className="visually-hidden"> message</span>
          </button>
        </div>
      ));
  return (
    <div className="notifications">
      <div role="alert" aria-live="assertive" className="notification-region">
        {list(true)}
      </div>
      <div role="status" aria-live="polite" className="notification-region">
        {list(false)}
      </div>
    </div>
  );
}
