#!/bin/sh
# Prints a Debian version for the working tree, from git:
#   tag v1.2.3 on HEAD           -> 1.2.3
#   5 commits after v1.2.3       -> 1.2.3+git5.gabc1234
#   no tag (42 commits so far)   -> 0.0.0~git42.gabc1234
#   uncommitted changes          -> the above + .dirty (sorts after the clean build)
#   no git at all                -> 0.0.0~dev
# A tag's own "-" (v1.0.0-rc1) becomes "~" so a pre-release sorts before 1.0.0.
set -eu
cd "$(dirname "$0")/.."
if ! git rev-parse --git-dir >/dev/null 2>&1; then echo 0.0.0~dev; exit 0; fi
dirty=
if ! git diff --quiet HEAD -- 2>/dev/null; then dirty=.dirty; fi
if d=$(git describe --tags --long --match 'v[0-9]*' 2>/dev/null); then
	hash=${d##*-}              # gabc1234
	rest=${d%-*}
	n=${rest##*-}              # commits since the tag
	tag=${rest%-*}
	v=$(echo "${tag#v}" | tr - '~')
	if [ "$n" = 0 ]; then echo "$v$dirty"; else echo "$v+git$n.$hash$dirty"; fi
else
	echo "0.0.0~git$(git rev-list --count HEAD).g$(git rev-parse --short HEAD)$dirty"
fi
