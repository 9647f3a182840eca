import { LinkBase, useDataProvider, useLogoutIfAccessDenied, useNavigate } from "ra-core";
import { useQueryClient } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { ApiError } from "../api-client";
import type { AdminScriptInfo, ScriptTask } from "../api-types";
import { useAdminAccess, useSettings } from "../admin-context";
import { formatDate } from "../field-value";
import { TOOL_ROUTES } from "../routes";
import { Timestamp } from "./facts";
import { ToolPage } from "./tool-page";
import { useToolData } from "./use-tool-data";

export function TaskStatus({ status }: { status: ScriptTask["status"] }) {
  return <span className={`task-status task-${status}`}>{status}</span>;
}

/** The scripts the app registered (each with Run), and the recent background tasks. */
export function ScriptsPage() {
  const access = useAdminAccess();
  const { basePath } = useSettings();
  const tool = access?.kind === "granted" ? access.config.platformTools.scripts : undefined;
  const scripts = useToolData<AdminScriptInfo[]>(tool?.routePath);
  // While a task runs, the list follows it.
  const tasks = useToolData<ScriptTask[]>(tool ? `${basePath}/tasks` : undefined, (data) => (data?.some((task) => task.status === "running") ? 2000 : false));
  const dataProvider = useDataProvider();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const logoutIfAccessDenied = useLogoutIfAccessDenied();
  const [problem, setProblem] = useState<ReactNode>();
  const [starting, setStarting] = useState<string>();
  const runDisabled = tool?.run.disabled !== false;

  const run = async (name: string) => {
    setProblem(undefined);
    setStarting(name);
    try {
      const task = (await dataProvider.runScript(tool!.routePath, name)) as ScriptTask;
      await queryClient.invalidateQueries({ queryKey: ["admin-tool", `${basePath}/tasks`] });
      navigate(`${TOOL_ROUTES.task}/${encodeURIComponent(task.id)}`);
    } catch (error) {
      if (await logoutIfAccessDenied(error)) return;
      const running = error instanceof ApiError && error.code === "ADMIN_SCRIPT_RUNNING" ? (error.entries[0]?.meta?.taskIds as string[] | undefined)?.[0] : undefined;
      setProblem(
        <>
          {error instanceof Error ? error.message : "The script could not be started."}
          {running ? (
            <>
              {" "}
              <LinkBase to={`${TOOL_ROUTES.task}/${encodeURIComponent(running)}`}>Open the running task</LinkBase>
            </>
          ) : null}
        </>,
      );
    } finally {
      setStarting(undefined);
    }
  };

  return (
    <ToolPage title="Scripts & tasks" isPending={scripts.isPending} error={scripts.error}>
      {() => (
        <>
          {problem ? (
            <div role="alert" className="form-error">
              {problem}
            </div>
          ) : null}
          <h2>Scripts</h2>
          {runDisabled ? <p className="hint" id="run-reason">Your account may see scripts and tasks, but not run scripts.</p> : null}
          {scripts.data && scripts.data.length > 0 ? (
            <ul className="script-list">
              {scripts.data.map((script) => (
                <li key={script.name} className="card">
                  <h3 className="mono">{script.name}</h3>
                  {script.description ? <p>{script.description}</p> : null}
                  <button type="button" className="button-primary" disabled={runDisabled || starting !== undefined} aria-describedby={runDisabled ? "run-reason" : undefined} onClick={() => run(script.name)}>
                    {starting === script.name ? "Starting…" : "Run"}
                    <span className="visually-hidden"> {script.name}</span>
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>The app registers no scripts.</p>
          )}
          <h2>Recent tasks</h2>
          {tasks.data && tasks.data.length > 0 ? (
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">Recent background tasks, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Script</th>
                    <th scope="col">Status</th>
                    <th scope="col">Started</th>
                    <th scope="col">Task</th>
                  </tr>
                </thead>
                <tbody>
                  {tasks.data.map((task) => (
                    <tr key={task.id}>
                      <td className="mono">{task.script}</td>
                      <td>
                        <TaskStatus status={task.status} />
                      </td>
                      <td>
                        <Timestamp value={task.started} />
                      </td>
                      <td>
                        <LinkBase to={`${TOOL_ROUTES.task}/${encodeURIComponent(task.id)}`}>
                          Open<span className="visually-hidden"> the {task.script} task started {formatDate(task.started)}</span>
                        </LinkBase>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p>No tasks since the server started.</p>
          )}
        </>
      )}
    </ToolPage>
  );
}
