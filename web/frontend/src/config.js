// What the server's page tells the front end about a problem, read from the data
// attributes of its editor mount.

export function readConfig(mount) {
  const data = mount.dataset;
  const dist = data.dist || "/static/dist/";
  return {
    slug: data.slug,
    dist,
    bundleURL: data.bundleUrl || `${dist}problems/${data.slug}.json`,
    loggedIn: data.loggedIn === "true" || data.loggedIn === "1",
    // Torch-tier problems cannot run in Pyodide: no worker; their Run asks the server
    // to judge the public cases (POST runUrl, then poll the run).
    runnable: (data.tier || "browser") === "browser",
    serverRun: data.tier === "torch" && Boolean(data.runUrl),
    loginURL: data.loginUrl || "/login",
    urls: {
      submit: data.submitUrl || "/api/submissions",
      run: data.runUrl || "",
      // "Try your own input": the reference runs on the server for any code problem.
      tryInput: data.tryUrl || "",
      draft: data.draftUrl || `/api/problems/${encodeURIComponent(data.slug)}/draft`,
      editorial: data.editorialUrl || `/api/problems/${encodeURIComponent(data.slug)}/editorial`,
      submission: data.submissionUrl || "/api/submissions",
      history:
        data.historyUrl ||
        `/api/submissions?problem=${encodeURIComponent(data.slug)}` +
          (data.username ? `&user=${encodeURIComponent(data.username)}` : ""),
    },
  };
}
