// SPDX-License-Identifier: Apache-2.0
#pragma once

// The hook formats live in core/hooks, where holdpoint-ctl's hooks reach
// them without Qt; this name stays for the code that includes it.
#include "hooks/gemini.h"
