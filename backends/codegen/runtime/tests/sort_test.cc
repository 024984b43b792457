// __hmo_cpu_sort with hand-written comparators, checked exactly.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "hmo/codegen/runtime/runtime_functions.h"

namespace {

template <typename T>
T Load(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// Ascending by operand 0 (f32).
void LessF32(char* result, char** elements) {
  *result = Load<float>(elements[0]) < Load<float>(elements[1]) ? 1 : 0;
}

// Descending by operand 0 (i32); operand 1 rides along.
void GreaterI32(char* result, char** elements) {
  *result = Load<int32_t>(elements[0]) > Load<int32_t>(elements[1]) ? 1 : 0;
}

// Ascending by operand 1 (i16), ties broken by operand 0 (f64) descending:
// checks that the comparator sees the lhs/rhs pairs in operand order.
void ByKeyThenValueDescending(char* result, char** elements) {
  const int16_t a = Load<int16_t>(elements[2]), b = Load<int16_t>(elements[3]);
  if (a != b) {
    *result = a < b;
    return;
  }
  *result = Load<double>(elements[0]) > Load<double>(elements[1]);
}

// Not a strict weak order: sorting must still leave a permutation.
void AlwaysTrue(char* result, char** /*elements*/) { *result = 1; }

TEST(SortTest, SingleOperandAscending) {
  std::vector<float> values = {3.5f, -1.0f, 2.0f, 0.0f, -7.25f, 2.0f, 10.0f};
  char* operands[] = {reinterpret_cast<char*>(values.data())};
  const int64_t bytes[] = {sizeof(float)};
  __hmo_cpu_sort(1, values.size(), 1, 1, operands, bytes, 0, LessF32);
  EXPECT_EQ(values, (std::vector<float>{-7.25f, -1.0f, 0.0f, 2.0f, 2.0f, 3.5f, 10.0f}));
}

TEST(SortTest, KeyValuePairsStableAndPermutedTogether) {
  std::vector<int32_t> keys = {1, 3, 2, 3, 1, 2};
  std::vector<uint8_t> payload = {10, 11, 12, 13, 14, 15};
  char* operands[] = {reinterpret_cast<char*>(keys.data()),
                      reinterpret_cast<char*>(payload.data())};
  const int64_t bytes[] = {4, 1};
  __hmo_cpu_sort(1, keys.size(), 1, 2, operands, bytes, 1, GreaterI32);
  EXPECT_EQ(keys, (std::vector<int32_t>{3, 3, 2, 2, 1, 1}));
  // Equal keys keep their input order.
  EXPECT_EQ(payload, (std::vector<uint8_t>{11, 13, 12, 15, 10, 14}));
}

TEST(SortTest, MiddleDimensionOfThreeDArrayMatchesNaive) {
  // Shape [outer=3, sort=5, inner=4]; two operands: f64 values, i16 keys.
  const int64_t outer = 3, size = 5, inner = 4, total = outer * size * inner;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> key_dist(0, 2);
  std::vector<double> values(total);
  std::vector<int16_t> keys(total);
  for (int64_t i = 0; i < total; ++i) {
    values[i] = static_cast<double>(i) * 0.5 - 3;
    keys[i] = static_cast<int16_t>(key_dist(rng));
  }
  std::vector<double> expected_values = values;
  std::vector<int16_t> expected_keys = keys;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      std::vector<std::pair<int16_t, double>> column;
      for (int64_t s = 0; s < size; ++s) {
        const int64_t at = (o * size + s) * inner + j;
        column.emplace_back(keys[at], values[at]);
      }
      std::sort(column.begin(), column.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : a.second > b.second;
      });
      for (int64_t s = 0; s < size; ++s) {
        const int64_t at = (o * size + s) * inner + j;
        expected_keys[at] = column[s].first;
        expected_values[at] = column[s].second;
      }
    }
  }
  char* operands[] = {reinterpret_cast<char*>(values.data()), reinterpret_cast<char*>(keys.data())};
  const int64_t bytes[] = {8, 2};
  __hmo_cpu_sort(outer, size, inner, 2, operands, bytes, 0, ByKeyThenValueDescending);
  EXPECT_EQ(keys, expected_keys);
  EXPECT_EQ(values, expected_values);
}

TEST(SortTest, InconsistentComparatorLeavesAPermutation) {
  std::vector<float> values(100);
  std::iota(values.begin(), values.end(), 0.0f);
  char* operands[] = {reinterpret_cast<char*>(values.data())};
  const int64_t bytes[] = {sizeof(float)};
  __hmo_cpu_sort(1, values.size(), 1, 1, operands, bytes, 0, AlwaysTrue);
  std::vector<float> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], static_cast<float>(i));
}

}  // namespace
