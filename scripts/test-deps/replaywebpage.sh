#!/usr/bin/env bash
# Puts ReplayWeb.page (the npm package replaywebpage: its built ui.js and sw.js) in test/.cache/replaywebpage,
# where the tests that replay crawlite's WACZ exports in it look. Its own dependencies are not needed: the
# package ships its viewer built. Not a devDependency: it is AGPL-3.0 and only these tests load it.
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=2.5.3
DEST=test/.cache/replaywebpage
if [ -f "$DEST/package/sw.js" ] && grep -q "\"version\": \"$VERSION\"" "$DEST/package/package.json"; then exit 0; fi
rm -rf "$DEST" && mkdir -p "$DEST"
TARBALL=$(npm pack "replaywebpage@$VERSION" --pack-destination "$DEST" --silent | tail -1)
tar xzf "$DEST/$TARBALL" -C "$DEST"
rm -f "$DEST/$TARBALL"
echo "ReplayWeb.page $VERSION in $DEST/package"
