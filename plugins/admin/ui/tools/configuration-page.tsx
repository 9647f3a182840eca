import type { ConfigurationInfo } from "../api-types";
import { useAdminAccess } from "../admin-context";
import { Fact } from "./facts";
import { ToolPage } from "./tool-page";
import { useToolData } from "./use-tool-data";

export function ConfigurationPage() {
  const access = useAdminAccess();
  const { data, isPending, error } = useToolData<ConfigurationInfo>(access?.kind === "granted" ? access.config.platformTools.configuration.routePath : undefined);
  return (
    <ToolPage title="Configuration" isPending={isPending} error={error}>
      {() =>
        data ? (
          <>
            <dl className="facts">
              <Fact label="Environment">
                {data.nodeEnv}
                {data.isProduction ? " (production)" : ""}
              </Fact>
              <Fact label="Listens on" className="mono">
                {data.host ?? "all interfaces"}:{data.port}
              </Fact>
              {data.websocketPort !== undefined ? (
                <Fact label="WebSocket port" className="mono">
                  {data.websocketPort}
                </Fact>
              ) : null}
              <Fact label="API docs page">{data.enableApiDocsUi ? "on" : "off"}</Fact>
            </dl>
            <h2>Environment variables</h2>
            <p className="hint">Only the variables the app reads, and only those that are set. Secrets are never shown.</p>
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">Environment variables</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Value</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(data.environment).map(([name, value]) => (
                    <tr key={name}>
                      <th scope="row" className="mono">
                        {name}
                      </th>
                      <td className="mono wrap">{value}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        ) : null
      }
    </ToolPage>
  );
}
