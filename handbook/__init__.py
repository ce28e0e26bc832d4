"""The handbook's MkDocs plugin: a problem's workspace embedded in a chapter page.

`handbook.marker` finds the markers an author writes, `handbook.embed` checks each against
the built front end and writes its element, and `handbook.plugin` is the MkDocs side (the
`practice` entry point in `mkdocs.plugins`): it replaces the markers, links the page to the
embed's script, and copies what the embeds load into the site. docs/HANDBOOK.md says how to
use it.
"""
