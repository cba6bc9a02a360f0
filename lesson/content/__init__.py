"""Content: the files under `content/` read into validated models, `lesson check`, the content
files' JSON Schemas and the wire examples' check against each era's schema."""
