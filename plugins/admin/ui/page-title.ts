import { useEffect } from "react";
import { useSettings } from "./admin-context";

/** Sets the tab's title to the page's, so history and screen readers say where one is. */
export function usePageTitle(title: string | undefined): void {
  const { appName } = useSettings();
  useEffect(() => {
    document.title = title ? `${title} · ${appName} admin` : `${appName} admin`;
  }, [title, appName]);
}
