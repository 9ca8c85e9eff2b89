// SPDX-License-Identifier: Apache-2.0
#pragma once

// The strict JSON parser lives in wire, where the hooks reach it without Qt;
// this name gives it with common's JSON helpers, as before.
#include "common/json.h"
#include "wire/jsonparse.h"
