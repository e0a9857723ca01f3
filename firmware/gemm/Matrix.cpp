#include "firmware/gemm/Matrix.h"

#include <random>

#include "hw/pe/Numerics.h"

namespace wsesim::firmware {

Matrix Matrix::transposed() const {
  Matrix t(cols, rows);
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < cols; ++c) t.at(c, r) = at(r, c);
  return t;
}

Matrix referenceProduct(const Matrix& a, const Matrix& b) {
  Matrix c(a.rows, b.cols);
  for (std::uint32_t i = 0; i < a.rows; ++i)
    for (std::uint32_t j = 0; j < b.cols; ++j) {
      double sum = 0;
      for (std::uint32_t k = 0; k < a.cols; ++k) sum += double(a.at(i, k)) * b.at(k, j);
      c.at(i, j) = float(sum);
    }
  return c;
}

Matrix integerMatrix(std::uint32_t rows, std::uint32_t cols, int range, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(-range, range);
  Matrix m(rows, cols);
  for (float& v : m.values) v = float(dist(rng));
  return m;
}

Matrix uniformMatrix(std::uint32_t rows, std::uint32_t cols, pe::ElementType type, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Matrix m(rows, cols);
  for (float& v : m.values) v = pe::roundTo(type, dist(rng));
  return m;
}

}  // namespace wsesim::firmware
