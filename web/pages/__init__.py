"""Server-rendered pages: one blueprint per resource; front-end scripts hook into them."""
