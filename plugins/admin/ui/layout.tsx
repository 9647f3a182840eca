import { LinkBase, useGetIdentity, useLocation } from "ra-core";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { TOOL_ROUTES } from "./routes";
import { SignOutButton } from "./sign-out-button";
import { useAdminAccess, useSettings } from "./admin-context";
import { Notifications } from "./notifications";
import { AccessDeniedPage, LoadingPage } from "./status-pages";

function SkipLink() {
  // Not a plain href="#main": with hash routing that would navigate to a route called "main".
  return (
    <a
      className="skip-link"
      href="#main"
      onClick={(event) => {
        event.preventDefault();
        document.getElementById("main")?.focus();
      }}
    >
      Skip to content
    </a>
  );
}

function Header({ menuOpen, onMenu }: { menuOpen?: boolean; onMenu?: () => void }) {
  const { appName, signIn } = useSettings();
  const { identity } = useGetIdentity();
  const access = useAdminAccess();
  return (
    <header className="app-header">
      {onMenu ? (
        <button type="button" className="menu-button" aria-expanded={menuOpen} aria-controls="app-nav" onClick={onMenu}>
          Menu
        </button>
      ) : null}
      <p className="app-name">
        <LinkBase to="/">{appName}</LinkBase> <span className="app-suffix">admin</span>
      </p>
      <div className="user">
        {identity?.fullName ? (
          <span className="user-email" data-testid="signed-in-as">
            {identity.fullName}
          </span>
        ) : null}
        {/* Session sign-in: better-auth owns passwords, so there is no route to change one here. */}
        {signIn === "jwt" && access?.kind === "granted" ? <LinkBase to={TOOL_ROUTES.password}>Change password</LinkBase> : null}
        <SignOutButton />
      </div>
    </header>
  );
}

function NavLink({ to, children }: { to: string; children: ReactNode }) {
  const { pathname } = useLocation();
  const current = pathname === to || pathname.startsWith(`${to}/`);
  return (
    <LinkBase to={to} aria-current={current ? "page" : undefined}>
      {children}
    </LinkBase>
  );
}

function Navigation({ open }: { open: boolean }) {
  const access = useAdminAccess();
  if (access?.kind !== "granted") return null;
  const { models, platformTools: tools, customScreens } = access.config;
  const toolLinks = [
    tools.scripts.visible ? { to: TOOL_ROUTES.scripts, label: "Scripts & tasks" } : undefined,
    tools.roles.visible ? { to: TOOL_ROUTES.roles, label: "Roles" } : undefined,
    tools.version.visible ? { to: TOOL_ROUTES.version, label: "Version" } : undefined,
    tools.configuration.visible ? { to: TOOL_ROUTES.configuration, label: "Configuration" } : undefined,
  ].filter((link) => link !== undefined);
  return (
    <nav id="app-nav" className={`app-nav${open ? " open" : ""}`} aria-label="Admin">
      <h2 className="nav-heading">Data</h2>
      <ul>
        {models.map((model) => (
          <li key={model.name}>
            <NavLink to={`/${model.name}`}>{model.displayName}</NavLink>
          </li>
        ))}
      </ul>
      {customScreens.length > 0 ? (
        <>
          <h2 className="nav-heading">Screens</h2>
          <ul>
            {customScreens.map((screen) => (
              <li key={screen.name}>
                <NavLink to={`${TOOL_ROUTES.screens}/${encodeURIComponent(screen.name)}`}>{screen.displayName}</NavLink>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {toolLinks.length > 0 ? (
        <>
          <h2 className="nav-heading">Platform</h2>
          <ul>
            {toolLinks.map((link) => (
              <li key={link.to}>
                <NavLink to={link.to}>{link.label}</NavLink>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </nav>
  );
}

/** The page around every signed-in screen: header, navigation, main area, messages. */
export function Layout({ children }: { children: ReactNode }) {
  const access = useAdminAccess();
  const { pathname } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);

  // On a phone the menu closes once a page is chosen; focus moves to the new page's content so
  // keyboard and screen-reader users start there (not on the first render).
  useEffect(() => {
    setMenuOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus({ preventScroll: true });
  }, [pathname]);

  if (access?.kind === "denied") {
    return (
      <div className="app">
        <SkipLink />
        <Header />
        <main id="main" tabIndex={-1} className="app-main">
          <AccessDeniedPage message={access.message} />
        </main>
      </div>
    );
  }
  return (
    <div className="app">
      <SkipLink />
      <Header menuOpen={menuOpen} onMenu={() => setMenuOpen((open) => !open)} />
      <div className="app-body">
        <Navigation open={menuOpen} />
        <main id="main" tabIndex={-1} className="app-main" ref={main}>
          {access ? children : <LoadingPage />}
        </main>
      </div>
      <Notifications />
    </div>
  );
}
