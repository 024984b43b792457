# hmo_add_plugin(<name> SOURCES <files...> [LIBS <targets...>])
#
# Builds one plugin shared object: hidden visibility (only the extern "C"
# entry point is exported), linked against libhmo_framework.so, placed in the
# plugin directory of the build tree and installed beside the other plugins.
# The same function is exported by the installed CMake package for
# out-of-tree plugins.
function(hmo_add_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_library(${name} MODULE ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY "${HMO_PLUGIN_OUTPUT_DIR}")
  if(TARGET hmo_framework)
    target_link_libraries(${name} PRIVATE hmo_framework ${ARG_LIBS})
  else()
    target_link_libraries(${name} PRIVATE hmo::hmo_framework ${ARG_LIBS})
  endif()
  if(HMO_INSTALL_PLUGIN_DIR)
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
  target_compile_definitions(${target} PRIVATE
    HMO_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests"
    HMO_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    HMO_TEST_PLUGIN_DIR="${HMO_PLUGIN_OUTPUT_DIR}"
    HMO_BINARY_DIR="${CMAKE_BINARY_DIR}")
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300)
endfunction()
