#include "hmo/execution/npy.h"

#include <unistd.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "fmt/format.h"
#include "hmo/base/input_file.h"
#include "hmo/base/status_macros.h"
#include "float_digits.h"
#include "npy_header.h"

namespace hmo {
namespace {

using npy_internal::NpyHeader;

constexpr std::string_view kMagic = "\x93NUMPY";
// numpy aligns the start of the data to this many bytes.
constexpr size_t kDataAlignment = 64;
constexpr std::string_view kElementTypeComment = "hmo: element type ";

static_assert(std::endian::native == std::endian::little,
              ".npy data is read and written as little-endian bytes in place");

// The element type a (byte-order-stripped) dtype such as "f4" stands for.
std::optional<PrimitiveType> ElementTypeOfDtype(std::string_view kind_and_size) {
  static const std::pair<std::string_view, PrimitiveType> kTable[] = {
      {"b1", PrimitiveType::PRED}, {"i1", PrimitiveType::S8},   {"i2", PrimitiveType::S16},
      {"i4", PrimitiveType::S32},  {"i8", PrimitiveType::S64},  {"u1", PrimitiveType::U8},
      {"u2", PrimitiveType::U16},  {"u4", PrimitiveType::U32},  {"u8", PrimitiveType::U64},
      {"f2", PrimitiveType::F16},  {"f4", PrimitiveType::F32},  {"f8", PrimitiveType::F64},
      {"c8", PrimitiveType::C64},  {"c16", PrimitiveType::C128},
  };
  for (const auto& [dtype, type] : kTable) {
    if (dtype == kind_and_size) return type;
  }
  return std::nullopt;
}

std::string DimsText(const std::vector<int64_t>& dims) {
  return fmt::format("({}{})", fmt::join(dims, ", "), dims.size() == 1 ? "," : "");
}

// The dtype descr of an array literal for messages: "'<f4'", or the element
// type name when numpy has none.
std::string DtypeText(PrimitiveType type) {
  absl::StatusOr<NpyDtype> dtype = NpyDtypeFor(type);
  if (!dtype.ok() || dtype->widened) return std::string(PrimitiveTypeName(type));
  return fmt::format("'{}'", dtype->descr);
}

absl::StatusOr<int64_t> CheckedElementCount(const std::vector<int64_t>& dims,
                                            std::string_view source) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / 16 / d) {
      return absl::InvalidArgumentError(
          fmt::format("{}: shape {} is too large", source, DimsText(dims)));
    }
    count *= d;
  }
  return count;
}

// Copies `from` into a new literal of `type` element by element (exact for
// the widenings this file makes).
Literal ConvertElements(const Literal& from, const Shape& shape) {
  Literal to(shape);
  const PrimitiveType type = shape.element_type();
  const int64_t count = from.element_count();
  for (int64_t i = 0; i < count; ++i) {
    if (IsComplex(type)) {
      to.SetFromComplex(i, from.GetAsComplex(i));
    } else if (IsFloatingPoint(type)) {
      to.SetFromDouble(i, from.GetAsDouble(i));
    } else if (primitive_util::IsUnsignedIntegralType(type)) {
      to.SetFromUint64(i, from.GetAsUint64(i));
    } else {
      to.SetFromInt64(i, from.GetAsInt64(i));
    }
  }
  return to;
}

}  // namespace

absl::StatusOr<NpyDtype> NpyDtypeFor(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::PRED: return NpyDtype{"|b1"};
    case PrimitiveType::S8: return NpyDtype{"|i1"};
    case PrimitiveType::S16: return NpyDtype{"<i2"};
    case PrimitiveType::S32: return NpyDtype{"<i4"};
    case PrimitiveType::S64: return NpyDtype{"<i8"};
    case PrimitiveType::U8: return NpyDtype{"|u1"};
    case PrimitiveType::U16: return NpyDtype{"<u2"};
    case PrimitiveType::U32: return NpyDtype{"<u4"};
    case PrimitiveType::U64: return NpyDtype{"<u8"};
    case PrimitiveType::F16: return NpyDtype{"<f2"};
    case PrimitiveType::F32: return NpyDtype{"<f4"};
    case PrimitiveType::F64: return NpyDtype{"<f8"};
    case PrimitiveType::C64: return NpyDtype{"<c8"};
    case PrimitiveType::C128: return NpyDtype{"<c16"};
    case PrimitiveType::S2:
    case PrimitiveType::S4: return NpyDtype{"|i1", true};
    case PrimitiveType::U2:
    case PrimitiveType::U4: return NpyDtype{"|u1", true};
    default:
      // bf16 and the f8 / f4 formats: every value is exact in f32.
      if (IsFloatingPoint(type)) return NpyDtype{"<f4", true};
      return absl::InvalidArgumentError(
          fmt::format("element type {} has no .npy representation", PrimitiveTypeName(type)));
  }
}

absl::StatusOr<Literal> ParseNpy(std::string_view bytes, std::string_view source) {
  auto malformed = [&](std::string_view what) {
    return absl::InvalidArgumentError(fmt::format("{}: not a valid .npy file: {}", source, what));
  };
  if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic) {
    return malformed(bytes.size() < 10 ? "truncated before the header"
                                       : "missing the \\x93NUMPY magic");
  }
  const int major = static_cast<uint8_t>(bytes[6]);
  size_t header_start;
  size_t header_length;
  if (major == 1) {
    header_start = 10;
    header_length = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return malformed("truncated before the header");
    header_start = 12;
    header_length = 0;
    for (int i = 3; i >= 0; --i) header_length = (header_length << 8) | static_cast<uint8_t>(bytes[8 + i]);
  } else {
    return absl::UnimplementedError(
        fmt::format("{}: .npy format version {} is not supported (1, 2 and 3 are)", source, major));
  }
  if (bytes.size() - header_start < header_length) return malformed("truncated inside the header");
  absl::StatusOr<NpyHeader> header =
      npy_internal::ParseNpyHeader(bytes.substr(header_start, header_length));
  if (!header.ok()) {
    return absl::Status(header.status().code(),
                        fmt::format("{}: {}", source, std::string(header.status().message())));
  }
  if (header->fortran_order) {
    return absl::UnimplementedError(fmt::format(
        "{}: the array is in Fortran order (fortran_order: True); hmo reads C-order arrays "
        "only (save np.ascontiguousarray(a))",
        source));
  }
  std::string_view descr = header->descr;
  const char byte_order = descr.empty() ? '\0' : descr.front();
  if (byte_order == '<' || byte_order == '>' || byte_order == '|' || byte_order == '=') {
    descr.remove_prefix(1);
  }
  const std::optional<PrimitiveType> stored = ElementTypeOfDtype(descr);
  if (!stored.has_value()) {
    return absl::UnimplementedError(
        fmt::format("{}: dtype '{}' is not supported (bool, int8-64, uint8-64, float16/32/64 "
                    "and complex64/128 are)",
                    source, header->descr));
  }
  if (byte_order == '>' && ByteWidth(*stored) > 1) {
    return absl::UnimplementedError(fmt::format(
        "{}: dtype '{}' is big-endian; hmo reads little-endian data only", source, header->descr));
  }
  // A widened element type written by WriteNpyFile.
  PrimitiveType element_type = *stored;
  if (header->comment.rfind(kElementTypeComment, 0) == 0) {
    std::string_view name = std::string_view(header->comment).substr(kElementTypeComment.size());
    name = name.substr(0, name.find_first_of(" ,;"));
    std::optional<PrimitiveType> original = primitive_util::StringToPrimitiveType(name);
    absl::StatusOr<NpyDtype> widened_as =
        original.has_value() ? NpyDtypeFor(*original) : absl::StatusOr<NpyDtype>(NpyDtype{});
    if (!original.has_value() || !widened_as.ok() || !widened_as->widened ||
        ElementTypeOfDtype(std::string_view(widened_as->descr).substr(1)) != stored) {
      return malformed(fmt::format("header comment '{}' does not match dtype '{}'",
                                   header->comment, header->descr));
    }
    element_type = *original;
  }

  absl::StatusOr<int64_t> count = CheckedElementCount(header->shape, source);
  if (!count.ok()) return count.status();
  const size_t data_start = header_start + header_length;
  const uint64_t data_bytes = static_cast<uint64_t>(*count) * ByteWidth(*stored);
  const uint64_t present = bytes.size() - data_start;
  if (present < data_bytes) {
    return malformed(fmt::format("truncated data: shape {} of '{}' needs {} bytes, the file has {}",
                                 DimsText(header->shape), header->descr, data_bytes, present));
  }
  if (present > data_bytes) {
    return malformed(fmt::format("{} bytes after the data of shape {} of '{}'",
                                 present - data_bytes, DimsText(header->shape), header->descr));
  }
  Literal literal(Shape(*stored, header->shape));
  std::memcpy(literal.mutable_raw_data()->data(), bytes.data() + data_start, data_bytes);
  if (*stored == PrimitiveType::PRED) {
    // numpy writes 0/1; any other byte is still "true".
    for (uint8_t& b : *literal.mutable_raw_data()) b = b != 0;
  }
  if (element_type != *stored) return ConvertElements(literal, Shape(element_type, header->shape));
  return literal;
}

absl::StatusOr<std::string> SerializeNpy(const Literal& literal) {
  if (!literal.shape().IsArray()) {
    return absl::InvalidArgumentError(fmt::format(
        "only arrays can be written as .npy, not {}", literal.shape().ToString(false)));
  }
  if (literal.is_elided()) {
    return absl::InvalidArgumentError(fmt::format(
        "the literal of shape {} is elided (has no values)", literal.shape().ToString(false)));
  }
  absl::StatusOr<NpyDtype> dtype = NpyDtypeFor(literal.element_type());
  if (!dtype.ok()) return dtype.status();
  NpyHeader header;
  header.descr = dtype->descr;
  header.shape = literal.shape().dimensions();
  if (dtype->widened) {
    header.comment = fmt::format("{}{} (numpy has no {}; values are exact in {})",
                                 kElementTypeComment, PrimitiveTypeName(literal.element_type()),
                                 PrimitiveTypeName(literal.element_type()), dtype->descr);
  }
  std::string dict = npy_internal::FormatNpyHeader(header);
  // Version 1 stores the header length in 2 bytes; 2 in 4 bytes.
  size_t prefix = 10;
  int version = 1;
  const auto padded_length = [&] {
    const size_t unpadded = prefix + dict.size() + 1;  // + '\n'
    return (unpadded + kDataAlignment - 1) / kDataAlignment * kDataAlignment - prefix;
  };
  if (padded_length() > 0xFFFF) {
    prefix = 12;
    version = 2;
  }
  const size_t header_length = padded_length();
  dict.append(header_length - dict.size() - 1, ' ');
  dict.push_back('\n');

  std::string out(kMagic);
  out.push_back(static_cast<char>(version));
  out.push_back('\0');
  const int length_bytes = version == 1 ? 2 : 4;
  for (int i = 0; i < length_bytes; ++i) out.push_back(static_cast<char>((header_length >> (8 * i)) & 0xFF));
  out += dict;

  if (!dtype->widened) {
    const std::vector<uint8_t>& data = literal.raw_data();
    out.append(reinterpret_cast<const char*>(data.data()), data.size());
    return out;
  }
  const PrimitiveType stored = *ElementTypeOfDtype(std::string_view(dtype->descr).substr(1));
  const Literal widened = ConvertElements(literal, Shape(stored, literal.shape().dimensions()));
  const std::vector<uint8_t>& data = widened.raw_data();
  out.append(reinterpret_cast<const char*>(data.data()), data.size());
  return out;
}

absl::StatusOr<Literal> ReadNpyFile(const std::string& path) {
  HMO_ASSIGN_OR_RETURN(std::string contents, ReadInputFile(path));
  return ParseNpy(contents, path);
}

absl::Status WriteNpyFile(const std::string& path, const Literal& literal) {
  absl::StatusOr<std::string> bytes = SerializeNpy(literal);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        fmt::format("cannot write {}: {}", path, std::string(bytes.status().message())));
  }
  static std::atomic<int> counter{0};
  const std::filesystem::path target(path);
  const std::filesystem::path temporary =
      target.parent_path() / fmt::format(".{}.tmp.{}.{}", target.filename().string(), ::getpid(),
                                         counter.fetch_add(1));
  auto fail = [&](std::string_view what) {
    const std::string reason = std::strerror(errno);
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    return absl::PermissionDeniedError(fmt::format("cannot write {}: {}: {}", path, what, reason));
  };
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return fail("cannot create a temporary file");
    out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    out.flush();
    if (!out) return fail("write failed");
  }
  if (std::rename(temporary.c_str(), target.c_str()) != 0) return fail("rename failed");
  return absl::OkStatus();
}

absl::StatusOr<Literal> ConvertLiteralForShape(const Literal& literal, const Shape& shape,
                                               std::string_view source) {
  const auto mismatch = [&](std::string_view why) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: expected {} (dtype {}, shape {}), found {} (dtype {}, shape {}){}", source,
        shape.ToString(false), DtypeText(shape.element_type()), DimsText(shape.dimensions()),
        literal.shape().ToString(false), DtypeText(literal.element_type()),
        DimsText(literal.shape().dimensions()), why));
  };
  if (!shape.IsArray() || !literal.shape().IsArray() || literal.is_elided()) {
    return mismatch(": only arrays with values are converted");
  }
  if (shape.dimensions() != literal.shape().dimensions()) return mismatch("");
  const PrimitiveType from = literal.element_type();
  const PrimitiveType to = shape.element_type();
  if (from == to) {
    Literal result(shape);
    *result.mutable_raw_data() = literal.raw_data();
    return result;
  }
  using primitive_util::IsSignedIntegralType;
  using primitive_util::IsUnsignedIntegralType;
  const int from_bits = BitWidth(from);
  const int to_bits = BitWidth(to);
  // Whether every value of `from` is exact in `to`, or both are of one kind
  // (the values are then checked, or rounded for floats).
  bool allowed = false;
  bool check_integer_range = false;
  if (from == PrimitiveType::PRED) {
    allowed = true;
  } else if (IsInteger(from) && IsInteger(to)) {
    const bool same_kind = IsSignedIntegralType(from) == IsSignedIntegralType(to);
    if (same_kind) {
      allowed = true;
      check_integer_range = to_bits < from_bits;
    } else {
      allowed = IsUnsignedIntegralType(from) && to_bits > from_bits;
    }
  } else if (IsInteger(from) && IsFloatingPoint(to)) {
    const int value_bits = IsSignedIntegralType(from) ? from_bits - 1 : from_bits;
    allowed = value_bits <= execution_internal::SignificandDigits(to);
  } else if (IsFloatingPoint(from) && (IsFloatingPoint(to) || IsComplex(to))) {
    allowed = true;
  } else if (IsComplex(from) && IsComplex(to)) {
    allowed = true;
  }
  if (!allowed) return mismatch(": that conversion could change values");
  if (check_integer_range) {
    const int64_t count = literal.element_count();
    for (int64_t i = 0; i < count; ++i) {
      bool fits;
      if (IsUnsignedIntegralType(from)) {
        fits = literal.GetAsUint64(i) <= (to_bits == 64 ? UINT64_MAX : (uint64_t{1} << to_bits) - 1);
      } else {
        const int64_t v = literal.GetAsInt64(i);
        const int64_t limit = int64_t{1} << (to_bits - 1);
        fits = v >= -limit && v < limit;
      }
      if (!fits) {
        return mismatch(fmt::format(": element {} ({}) does not fit in {}", i,
                                    literal.ElementToString(i), PrimitiveTypeName(to)));
      }
    }
  }
  return ConvertElements(literal, shape);
}

absl::StatusOr<Literal> ReadNpyFileAs(const std::string& path, const Shape& shape) {
  absl::StatusOr<Literal> literal = ReadNpyFile(path);
  if (!literal.ok()) return literal.status();
  return ConvertLiteralForShape(*literal, shape, path);
}

}  // namespace hmo
