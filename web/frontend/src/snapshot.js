// A memory snapshot of Python taken right after the judge is imported, kept in the
// browser's Cache Storage. Starting the interpreter is most of a cold page open; later
// opens (and the fresh worker after a Stop) restore the snapshot instead, several times
// faster. The key holds Pyodide's version and judge.zip's hash, so a new runtime or a
// new judge never restores stale modules. Without Cache Storage or WebCrypto (a page
// served over plain http from another host) every start is simply a cold one.

const CACHE_NAME = "practice-judge-python";

function available() {
  return Boolean(self.caches && self.crypto && self.crypto.subtle);
}

export async function snapshotKey(version, judgeBytes) {
  if (!available()) return null;
  const digest = new Uint8Array(await self.crypto.subtle.digest("SHA-256", judgeBytes));
  const hex = Array.from(digest.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
  return new URL(`/__python-snapshot/${version}/${hex}`, self.location.origin).href;
}

export async function loadSnapshot(key) {
  if (!key) return null;
  try {
    const cache = await self.caches.open(CACHE_NAME);
    const hit = await cache.match(key);
    return hit ? new Uint8Array(await hit.arrayBuffer()) : null;
  } catch {
    return null; // storage refused (private mode, quota): start cold
  }
}

// Replaces every older snapshot: only the current runtime and judge are worth keeping.
export async function saveSnapshot(key, bytes) {
  if (!key) return;
  try {
    const cache = await self.caches.open(CACHE_NAME);
    for (const old of await cache.keys()) {
      if (old.url !== key) await cache.delete(old);
    }
    await cache.put(key, new Response(bytes, { headers: { "Content-Type": "application/octet-stream" } }));
  } catch {
    // Not saving only costs the next open its speed-up.
  }
}

// Whether any snapshot is kept (the page asks before it warms Python up ahead: warmup.js).
export async function hasSnapshot() {
  if (!available()) return true; // nothing could be kept: warming ahead would be wasted
  try {
    return (await (await self.caches.open(CACHE_NAME)).keys()).length > 0;
  } catch {
    return true;
  }
}

export async function dropSnapshot(key) {
  if (!key) return;
  try {
    await (await self.caches.open(CACHE_NAME)).delete(key);
  } catch {
    // Nothing to drop.
  }
}
