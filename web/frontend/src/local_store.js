// localStorage that never throws: with storage disabled or over its quota, a read finds
// nothing and a write is lost, and the page goes on (only what it would remember is gone).

export function storedItem(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

// `value` null removes the item.
export function storeItem(key, value) {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // Storage disabled or full: not remembered.
  }
}
