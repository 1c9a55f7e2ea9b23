module {
  func.func @f() attributes {tfc.fast = 1 : i64} {
    return
  }
}
