import { LinkBase } from "ra-core";
import { useParams } from "react-router";
import type { ScriptTask } from "../api-types";
import { useSettings } from "../admin-context";
import { TOOL_ROUTES } from "../routes";
import { Fact, Timestamp } from "./facts";
import { TaskStatus } from "./scripts-page";
import { ToolPage } from "./tool-page";
import { useToolData } from "./use-tool-data";

/** How often a running task is read again. */
const POLL_MS = 1000;

/** One background task: its status and log, read every second while it runs. */
export function TaskPage() {
  const { id = "" } = useParams();
  const { basePath } = useSettings();
  const { data: task, isPending, error } = useToolData<ScriptTask>(`${basePath}/tasks/${encodeURIComponent(id)}`, (data) => (data?.status === "running" ? POLL_MS : false));
  return (
    <ToolPage title={task ? `Task: ${task.script}` : "Task"} isPending={isPending} error={error}>
      {() =>
        task ? (
          <>
            <p className="back">
              <LinkBase to={TOOL_ROUTES.scripts}>
                <span aria-hidden="true">← </span>Scripts & tasks
              </LinkBase>
            </p>
            <dl className="facts">
              <Fact label="Status" testId="task-status">
                <span role="status">
                  <TaskStatus status={task.status} />
                </span>
              </Fact>
              <Fact label="Started">
                <Timestamp value={task.started} />
              </Fact>
              {task.finished ? (
                <Fact label="Finished">
                  <Timestamp value={task.finished} />
                </Fact>
              ) : null}
              <Fact label="Started by" className="mono">
                {task.startedBy}
              </Fact>
            </dl>
            {task.error ? (
              <p role="alert" className="form-error">
                Failed: {task.error}
              </p>
            ) : null}
            <h2 id="log-title">Log</h2>
            {task.log.length > 0 ? (
              <ol className="task-log" aria-labelledby="log-title" data-testid="task-log">
                {task.log.map((line, index) => (
                  <li key={index}>{line}</li>
                ))}
              </ol>
            ) : (
              <p className="hint">{task.status === "running" ? "No lines yet." : "The script wrote nothing."}</p>
            )}
          </>
        ) : null
      }
    </ToolPage>
  );
}
