-- Which version of text extraction made each page's text. Version 2 leaves out the boilerplate a page
-- marks (navigation, search boxes, page headers and footers, aria-hidden, heading permalinks); the text
-- of archives made before it is version 1, and `crawlite reindex` extracts it again.
ALTER TABLE page_text ADD COLUMN text_version INTEGER NOT NULL DEFAULT 1;
