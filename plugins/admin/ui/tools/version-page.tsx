import type { VersionInfo } from "../api-types";
import { useAdminAccess } from "../admin-context";
import { Fact, Timestamp } from "./facts";
import { ToolPage } from "./tool-page";
import { useToolData } from "./use-tool-data";

export function VersionPage() {
  const access = useAdminAccess();
  const { data, isPending, error } = useToolData<VersionInfo>(access?.kind === "granted" ? access.config.platformTools.version.routePath : undefined);
  return (
    <ToolPage title="Version" isPending={isPending} error={error}>
      {() =>
        data ? (
          <dl className="facts">
            <Fact label="App">{[data.app.name, data.app.version].filter(Boolean).join(" ") || "—"}</Fact>
            <Fact label="Framework">
              {data.framework.name} {data.framework.version}
            </Fact>
            <Fact label="Node.js">
              {data.runtime.node} ({data.runtime.platform})
            </Fact>
            <Fact label="Running since">
              <Timestamp value={data.startedAt} />
            </Fact>
          </dl>
        ) : null
      }
    </ToolPage>
  );
}
