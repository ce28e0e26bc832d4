"""Problem kinds: each kind of problem is one class (judge/kinds/kind.py) saying how its
folders load, how a submission to it is judged, what its public bundle holds, how it
proves itself (`judge check`) and what `judge show` prints; judge/kinds/registry.py names
them. A new kind is one module with its class, and one `register` call."""
