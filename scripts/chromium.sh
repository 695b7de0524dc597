#!/usr/bin/env bash
# The page tests drive Debian's chromium through Playwright; a browser
# downloaded by a test tool is not used. Install it when it is missing.
set -eu
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "Chromium is missing: run 'sudo apt-get install chromium' (the page tests need /usr/bin/chromium)" >&2
  exit 1
fi
echo "Installing Debian's chromium for the page tests..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
