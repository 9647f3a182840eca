// The demo admin's "Todo stats" screen: a custom screen of the admin web UI (docs/admin.md,
// "Custom screens"), plain JavaScript served as it is. It reads GET /todo-stats, a route of the
// demo that checks the caller's todoStats:read itself.
globalThis.svcAdmin.registerScreen("todo-stats", {
  mount(element, context) {
    const list = document.createElement("dl");
    const status = document.createElement("p");
    status.textContent = "Counting…";
    element.append(status, list);
    let left = false;
    const show = () =>
      context.request("/todo-stats").then(
        ({ data }) => {
          if (left) return;
          status.textContent = `As of ${new Date(data.at).toLocaleTimeString()}:`;
          list.replaceChildren(
            ...[["Open", data.open], ["Done", data.done], ["Overdue", data.overdue]].flatMap(([label, count]) => {
              const term = document.createElement("dt");
              const value = document.createElement("dd");
              term.textContent = label;
              value.textContent = String(count);
              return [term, value];
            }),
          );
        },
        (error) => {
          if (!left) status.textContent = `The counts could not be loaded: ${error.message}`;
        },
      );
    show();
    const timer = setInterval(show, 10_000);
    return () => {
      left = true;
      clearInterval(timer);
    };
  },
});
