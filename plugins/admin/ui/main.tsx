import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "./admin.css";
import { AdminApp } from "./admin-app";
import { readSettings } from "./settings";

const root = createRoot(document.getElementById("root")!);
try {
  const settings = readSettings();
  document.title = `${settings.appName} admin`;
  root.render(
    <StrictMode>
      <AdminApp settings={settings} />
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
