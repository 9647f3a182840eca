import type { RoleInfo } from "../api-types";
import { useAdminAccess } from "../admin-context";
import { ToolPage } from "./tool-page";
import { useToolData } from "./use-tool-data";

export function RolesPage() {
  const access = useAdminAccess();
  const { data, isPending, error } = useToolData<RoleInfo[]>(access?.kind === "granted" ? access.config.platformTools.roles.routePath : undefined);
  return (
    <ToolPage title="Roles" isPending={isPending} error={error}>
      {() =>
        data && data.length > 0 ? (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Roles and their permissions</caption>
              <thead>
                <tr>
                  <th scope="col">Role</th>
                  <th scope="col">Description</th>
                  <th scope="col">Permissions</th>
                </tr>
              </thead>
              <tbody>
                {data.map((role) => (
                  <tr key={role.name}>
                    <th scope="row">{role.name}</th>
                    <td>{role.description ?? ""}</td>
                    <td>
                      <ul className="chips">
                        {role.permissions.map((permission) => (
                          <li key={permission} className="chip mono">
                            {permission}
                          </li>
                        ))}
                      </ul>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p>No roles are defined.</p>
        )
      }
    </ToolPage>
  );
}
