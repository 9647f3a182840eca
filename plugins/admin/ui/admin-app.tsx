import { CoreAdmin, CustomRoutes, memoryStore, Resource } from "ra-core";
import { useState } from "react";
import { Route } from "react-router";
import { ApiClientContext, SettingsContext } from "./admin-context";
import { ApiClient } from "./api-client";
import { authProvider } from "./auth-provider";
import { CustomScreenPage } from "./custom-screen-page";
import { dataProvider } from "./data-provider";
import { HomePage } from "./home-page";
import { i18nProvider } from "./i18n-provider";
import { Layout } from "./layout";
import { ModelList } from "./model-list";
import { ModelRegistry } from "./model-registry";
import { CreatePage, RecordPage } from "./record-page";
import { ScreenScriptsContext, type ScreenScripts } from "./screen-scripts";
import type { AdminSettings } from "./settings";
import { SignInPage } from "./sign-in-page";
import { TOOL_ROUTES } from "./routes";
import { NotFoundPage, LoadingPage } from "./status-pages";
import { ChangePasswordPage } from "./change-password-page";
import { ConfigurationPage } from "./tools/configuration-page";
import { RolesPage } from "./tools/roles-page";
import { ScriptsPage } from "./tools/scripts-page";
import { TaskPage } from "./tools/task-page";
import { VersionPage } from "./tools/version-page";
import type { AdminAccess } from "./auth-provider";


/**
 * The admin: ra-core with our own components. The resources are a function of the caller's
 * config (fetched by `authProvider.getPermissions`): one `<Resource>` per model they may read,
 * and routes for the tools they may see.
 */
export function AdminApp({ settings, screens }: { settings: AdminSettings; screens: ScreenScripts }) {
  // Made once: ra-core keeps its providers for the life of the app.
  const [{ api, auth, data }] = useState(() => {
    const api = new ApiClient(settings);
    const models = new ModelRegistry();
    const auth = authProvider(api);
    const getPermissions = auth.getPermissions!;
    // The data provider maps resources through the registry, which follows the latest config.
    auth.getPermissions = async (params: unknown) => {
      const access = (await getPermissions(params)) as AdminAccess | null;
      models.set(access?.kind === "granted" ? access.config.models : []);
      return access;
    };
    return { api, auth, data: dataProvider(api, models) };
  });
  return (
    <SettingsContext.Provider value={settings}>
      <ApiClientContext.Provider value={api}>
        <ScreenScriptsContext.Provider value={screens}>
          <CoreAdmin
            authProvider={auth}
            dataProvider={data}
            i18nProvider={i18nProvider}
            // Nothing of the admin is kept after the tab closes (list settings included).
            store={memoryStore()}
            layout={Layout}
            loginPage={SignInPage}
            dashboard={HomePage}
            catchAll={NotFoundPage}
            loading={LoadingPage}
            title={`${settings.appName} admin`}
            requireAuth
            disableTelemetry
          >
            {(access: AdminAccess | null) => {
              if (access?.kind !== "granted") return [];
              const { config } = access;
              const tools = config.platformTools;
              return [
                ...config.models.map((model) => <Resource key={model.name} name={model.name} options={{ label: model.displayName }} list={ModelList} edit={RecordPage} create={CreatePage} recordRepresentation={(record) => String(record.title ?? record.name ?? record.email ?? record.id)} />),
                <CustomRoutes key="tools">
                  {tools.scripts.visible ? <Route path={TOOL_ROUTES.scripts} element={<ScriptsPage />} /> : null}
                  {tools.scripts.visible ? <Route path={`${TOOL_ROUTES.task}/:id`} element={<TaskPage />} /> : null}
                  {tools.roles.visible ? <Route path={TOOL_ROUTES.roles} element={<RolesPage />} /> : null}
                  {tools.version.visible ? <Route path={TOOL_ROUTES.version} element={<VersionPage />} /> : null}
                  {tools.configuration.visible ? <Route path={TOOL_ROUTES.configuration} element={<ConfigurationPage />} /> : null}
                  {config.customScreens.length > 0 ? <Route path={`${TOOL_ROUTES.screens}/:name`} element={<CustomScreenPage />} /> : null}
                  {settings.signIn === "jwt" ? <Route path={TOOL_ROUTES.password} element={<ChangePasswordPage />} /> : null}
                </CustomRoutes>,
              ];
            }}
          </CoreAdmin>
        </ScreenScriptsContext.Provider>
      </ApiClientContext.Provider>
    </SettingsContext.Provider>
  );
}
