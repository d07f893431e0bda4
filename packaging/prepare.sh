#!/bin/sh
# Writes the files of the .deb that are made from the tree, into OUTDIR:
#   dormouse.yaml          the conffile: configs/dormouse.yaml with backup.dir
#                          set to /var/backups/dormouse, outside the data that
#                          `apt purge` deletes (the embedded default, under
#                          data_dir, suits a `make run` without root)
#   changelog.Debian.gz    packaging/changelog, under an entry for VERSION when
#                          that is a snapshot, gzipped as Debian policy asks
# Usage: packaging/prepare.sh OUTDIR VERSION (`make deb` and TestDebs run it).
set -eu
out=$1 version=$2
cd "$(dirname "$0")/.."
mkdir -p "$out"

awk '
	/^backup:/ { inbackup = 1 }
	/^[^ #]/ && !/^backup:/ { inbackup = 0 }
	inbackup && /^  dir: ""$/ { print "  dir: /var/backups/dormouse"; done = 1; next }
	{ print }
	END { if (!done) { print "prepare.sh: no backup.dir line in configs/dormouse.yaml" > "/dev/stderr"; exit 1 } }
' configs/dormouse.yaml >"$out/dormouse.yaml"

top=$(sed -n '1s/^dormouse (\([^)]*\)).*/\1/p' packaging/changelog)
{
	if [ "$version" != "$top" ]; then
		# A snapshot between releases: dated by its commit, so rebuilding
		# the same tree gives the same file.
		when=$(TZ=UTC date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
		commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
		printf 'dormouse (%s) UNRELEASED; urgency=medium\n\n' "$version"
		printf '  * Snapshot built from git commit %s: its changes since the entry\n' "$commit"
		printf '    below are in the project'"'"'s git log.\n\n'
		printf ' -- Dormouse maintainers <maintainers@dormouse-dev.invalid>  %s\n\n' "$when"
	fi
	cat packaging/changelog
} | gzip -9n >"$out/changelog.Debian.gz"
