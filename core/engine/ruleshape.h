// SPDX-License-Identifier: Apache-2.0
#pragma once

// The "always" rule's shape moved to the replay part (replay/ruleshape.h),
// which holdpoint-ctl links for `policy suggest` without the engine; this
// name stays for the desktop's include (ui/alwaysruledialog.h).
#include "replay/ruleshape.h"
