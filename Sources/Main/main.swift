import WidgetSimCLI

WidgetSimCLI.main()
