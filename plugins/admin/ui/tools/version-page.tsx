import type { VersionInfo } from "../api-types";
import { useAdminAccess } from "../admin-context";
import { formatDate } from "../field-value";
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
            <div>
              <dt>App</dt>
              <dd>{[data.app.name, data.app.version].filter(Boolean).join(" ") || "—"}</dd>
            </div>
            <div>
              <dt>Framework</dt>
              <dd>
                {data.framework.name} {data.framework.version}
              </dd>
            </div>
            <div>
              <dt>Node.js</dt>
              <dd>
                {data.runtime.node} ({data.runtime.platform})
              </dd>
            </div>
            <div>
              <dt>Running since</dt>
              <dd>
                <time dateTime={data.startedAt}>{formatDate(data.startedAt)}</time>
              </dd>
            </div>
          </dl>
        ) : null
      }
    </ToolPage>
  );
}
