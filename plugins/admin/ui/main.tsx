import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "./admin.css";
import { AdminApp } from "./admin-app";
import { ScreenScripts } from "./screen-scripts";
import { readSettings } from "./settings";

const root = createRoot(document.getElementById("root")!);
try {
  const settings = readSettings();
  document.title = `${settings.appName} admin`;
  // The registration API exists before the first script runs; the scripts load beside the app
  // (a slow or broken one never holds up signing in or the rest of the admin).
  const screens = new ScreenScripts();
  screens.install();
  void screens.load(settings.prefix, settings.screenScripts);
  root.render(
    <StrictMode>
      <AdminApp settings={settings} screens={screens} />
    </StrictMode>,
  );
} catch (error) {
  root.render(
    <main className="fatal">
      <h1>The admin cannot start</h1>
      <p role="alert">{error instanceof Error ? error.message : String(error)}</p>
    </main>,
  );
}
