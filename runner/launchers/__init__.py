"""The server's launchers, both implementations of the core's `judge.run.interfaces.Launcher`:
`sandbox` (every job in bubblewrap, forked from warm workers) and `unsafe_local` (the core's
plain child process, as the `judge-sandbox` user when the server is root). The core keeps its
own plain `judge.run.launch.LocalLauncher` beside the interface: `judge run` uses it where
the runner cannot be installed (a learner's machine without bubblewrap), and the core
imports only the standard library."""
