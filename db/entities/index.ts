import { Tenant } from './Tenant.js';
import { BusinessUnit } from './BusinessUnit.js';
import { Branch } from './Branch.js';
import { VehicleCategory } from './VehicleCategory.js';
import { Vehicle } from './Vehicle.js';
import { Customer } from './Customer.js';
import { Rental } from './Rental.js';
import { Event } from './Event.js';
import { Role } from './Role.js';
import { RoleAssignment } from './RoleAssignment.js';
import { ApiClient } from './ApiClient.js';
import { Setting } from './Setting.js';
import { VehicleCommand } from './VehicleCommand.js';
import { CompatibleBranch } from './CompatibleBranch.js';
import { AreaType } from './AreaType.js';
import { Area } from './Area.js';
import { Station } from './Station.js';
import { PhysicalStation } from './PhysicalStation.js';
import { PhysicalStationSlot } from './PhysicalStationSlot.js';
import { ParkingArea } from './ParkingArea.js';
import { PoiCategory } from './PoiCategory.js';
import { Poi } from './Poi.js';

export {
  Tenant,
  BusinessUnit,
  Branch,
  VehicleCategory,
  Vehicle,
  Customer,
  Rental,
  Event,
  Role,
  RoleAssignment,
  ApiClient,
  Setting,
  VehicleCommand,
  CompatibleBranch,
  AreaType,
  Area,
  Station,
  PhysicalStation,
  PhysicalStationSlot,
  ParkingArea,
  PoiCategory,
  Poi,
};
export { TenantScoped, TENANT_FILTER } from './TenantScoped.js';
