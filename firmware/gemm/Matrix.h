#pragma once
// A dense row-major matrix of floats, for GEMM operands and references.

#include <cstdint>
#include <vector>

#include "hw/pe/OpKind.h"

namespace wsesim::firmware {

struct Matrix {
  std::uint32_t rows = 0, cols = 0;
  std::vector<float> values;

  Matrix() = default;
  Matrix(std::uint32_t r, std::uint32_t c) : rows(r), cols(c), values(std::size_t(r) * c, 0.0f) {}
  float& at(std::uint32_t r, std::uint32_t c) { return values[std::size_t(r) * cols + c]; }
  float at(std::uint32_t r, std::uint32_t c) const { return values[std::size_t(r) * cols + c]; }
  Matrix transposed() const;
};

// C = A * B in double precision, rounded once to float.
Matrix referenceProduct(const Matrix& a, const Matrix& b);

// Values every element type holds exactly: integers in [-range, range].
Matrix integerMatrix(std::uint32_t rows, std::uint32_t cols, int range, std::uint64_t seed);
// Uniform in [-1, 1), rounded to `type`.
Matrix uniformMatrix(std::uint32_t rows, std::uint32_t cols, pe::ElementType type, std::uint64_t seed);

}  // namespace wsesim::firmware
