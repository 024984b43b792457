# hmo_add_plugin(<name> SOURCES <files...> [LIBS <targets...>]
#                [C_ABI_ONLY] [OUTPUT_DIRECTORY <dir>] [NO_INSTALL])
#
# Builds one plugin shared object with hidden visibility (only the extern "C"
# entry point is exported), places it in the plugin directory of the build tree
# and installs it beside the other plugins.
#
#   C_ABI_ONLY        the plugin uses only the C ABI headers (plugin_abi.h,
#                     scheduler_strategy_abi.h): it gets hmo's include
#                     directory but does not link libhmo_framework.so, so it
#                     keeps working across hmo rebuilds.
#   OUTPUT_DIRECTORY  build the .so there instead of the plugin directory
#                     (test fixtures that must not be loaded by default).
#   NO_INSTALL        do not install it.
#
# The same function is exported by the installed CMake package (hmoConfig.cmake)
# for out-of-tree plugins; there it installs into the consumer's
# HMO_INSTALL_PLUGIN_DIR when that is set, and builds a C++ plugin with the
# framework's assertion and sanitizer settings (part of its build fingerprint).
function(hmo_add_plugin name)
  cmake_parse_arguments(ARG "C_ABI_ONLY;NO_INSTALL" "OUTPUT_DIRECTORY" "SOURCES;LIBS" ${ARGN})
  if(ARG_OUTPUT_DIRECTORY)
    # Test fixtures: part of the hmo-test-fixtures target.
    set_property(GLOBAL APPEND PROPERTY HMO_FIXTURE_PLUGIN_TARGETS ${name})
  else()
    # A plugin the host loads by default: part of the hmo-tools target.
    set_property(GLOBAL APPEND PROPERTY HMO_DEFAULT_PLUGIN_TARGETS ${name})
    if(HMO_PLUGIN_OUTPUT_DIR)
      set(ARG_OUTPUT_DIRECTORY "${HMO_PLUGIN_OUTPUT_DIR}")
    else()
      set(ARG_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
    endif()
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}"
    # Installed plugins live in <prefix>/lib/hmo/plugins, the framework in <prefix>/lib.
    INSTALL_RPATH "$ORIGIN/../..")
  if(ARG_C_ABI_ONLY)
    if(TARGET hmo_plugin_abi)
      target_link_libraries(${name} PRIVATE hmo_plugin_abi ${ARG_LIBS})
    else()
      target_link_libraries(${name} PRIVATE hmo::hmo_plugin_abi ${ARG_LIBS})
    endif()
  elseif(TARGET hmo_framework)
    target_link_libraries(${name} PRIVATE hmo_framework ${ARG_LIBS})
  else()
    target_link_libraries(${name} PRIVATE hmo::hmo_framework ${ARG_LIBS})
  endif()
  if(NOT ARG_C_ABI_ONLY AND NOT TARGET hmo_framework)
    # Out of tree: the settings in a C++ plugin's build fingerprint
    # (build_fingerprint.h) follow the installed framework's build, whatever
    # the consumer's build type, so a Debug plugin still loads into a release
    # hmo. In hmo's tree the global flags do this.
    if(HMO_SDK_ASSERTIONS)
      target_compile_options(${name} PRIVATE -UNDEBUG)
    else()
      target_compile_definitions(${name} PRIVATE NDEBUG)
    endif()
    if(HMO_SDK_SANITIZE)
      target_compile_options(${name} PRIVATE -fsanitize=${HMO_SDK_SANITIZE})
      target_link_options(${name} PRIVATE -fsanitize=${HMO_SDK_SANITIZE})
    endif()
  endif()
  if(HMO_INSTALL_PLUGIN_DIR AND NOT ARG_NO_INSTALL)
    install(TARGETS ${name} LIBRARY DESTINATION ${HMO_INSTALL_PLUGIN_DIR})
  endif()
endfunction()

# hmo_add_test(<target> SOURCES <files...> [LIBS <targets...>])
# A gtest binary linked against the framework, registered with ctest; used by
# tests/ and by each plugin folder's tests/.
function(hmo_add_test target)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE hmo_framework GTest::gtest GTest::gmock GTest::gtest_main
                        ${ARG_LIBS})
  # Shared test helpers (tests/support: hmo_testing), in hmo's own tree.
  if(TARGET hmo_testing)
    target_link_libraries(${target} PRIVATE hmo_testing)
  endif()
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${target} PRIVATE
    HMO_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests"
    HMO_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    HMO_TEST_PLUGIN_DIR="${HMO_PLUGIN_OUTPUT_DIR}"
    HMO_BINARY_DIR="${CMAKE_BINARY_DIR}")
  # Every `hmo run` a test starts checks each pass's `changed` answer.
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60
                       PROPERTIES TIMEOUT 300 ENVIRONMENT "HMO_CHECK_CHANGED=1")
endfunction()
