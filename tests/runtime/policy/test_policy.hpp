#pragma once
// A small policy shared by the selection and supervisor tests: two local pi
// targets (one with native resume), a three-step cloud chain and a fixed
// review target, with rules that give single- and multi-candidate decisions.

#include <gtest/gtest.h>

#include "runtime/policy/policy.hpp"
#include "runtime/policy/time_zone.hpp"

namespace ad::runtime::test_policy {

inline constexpr const char* text = R"({
  "timezone": "Asia/Seoul",
  "targets": [
    {"id": "pi-a", "adapter": "pi", "model": "laguna-s", "execution_class": "local_model",
     "native_resume": true},
    {"id": "pi-b", "adapter": "pi", "model": "laguna-m", "execution_class": "local_model"},
    {"id": "agy", "adapter": "agy", "model": "g", "execution_class": "cloud_model",
     "quota_probe": ["probe", "{adapter}", "{model}"]},
    {"id": "claude", "adapter": "claude", "model": "opus", "execution_class": "cloud_model",
     "reasoning_effort": "xhigh", "quota_probe": ["probe", "{adapter}", "{model}"]},
    {"id": "codex", "adapter": "codex", "model": "terra", "execution_class": "cloud_model",
     "reasoning_effort": "high", "quota_probe": ["probe", "{adapter}", "{model}"]},
    {"id": "reviewer", "adapter": "codex", "model": "terra", "execution_class": "cloud_model",
     "reasoning_effort": "xhigh"}
  ],
  "rules": [
    {"id": "local", "priority": 1, "stage": "worker", "lanes": ["local"], "grades": [1, 10],
     "candidates": ["pi-a", "pi-b"]},
    {"id": "cloud-low", "priority": 1, "stage": "worker", "lanes": ["cloud"], "grades": [1, 5],
     "candidates": ["agy"]},
    {"id": "cloud-high", "priority": 1, "stage": "worker", "lanes": ["cloud"], "grades": [6, 10],
     "candidates": ["agy", "claude"]},
    {"id": "cloud-night", "priority": 5, "stage": "worker", "lanes": ["cloud"], "grades": [9, 10],
     "time_window": {"days": ["mon", "tue"], "start": "22:00", "end": "06:00"},
     "candidates": ["codex", "claude"]}
  ],
  "promotion": {"agy": "claude", "claude": "codex"},
  "review_target": "reviewer",
  "backoff": {"initial_s": 2, "coefficient": 2, "max_s": 30},
  "timeouts": {"reset_wait_max_s": 600, "quota_cooldown_s": 900}
})";

inline policy load() {
  auto loaded = parse_policy_text(text, "test-policy.json");
  EXPECT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  return loaded ? loaded->value : policy{};
}

inline time_zone seoul() { return time_zone::fixed("Asia/Seoul", 9 * 3600); }

inline millis at(const char* iso) {
  auto t = parse_utc_iso(iso);
  EXPECT_TRUE(t.is_ok()) << iso;
  return t ? *t : 0;
}

} // namespace ad::runtime::test_policy
